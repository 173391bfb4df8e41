package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// [run] pr = true: a done task's branch is pushed and gets its pull
// request through owt pr's path; the run says which, and the PR is the
// agent's like any other (owt list shows it).
func TestRunWithPROpensAPullRequestForEachDoneTask(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	bare := e.withRemote(repo)
	e.SetGh(noPRYet, createFixture, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("x", "", checkRun("test", "IN_PROGRESS", "", 1))})
	e.WriteFile(repo, "pr.toml", `[run]
tool = "claude"
pr = true

[[task]]
id = "feat"
task = "`+taskScript("feature.txt")+`"
`)
	e.MustOwt(repo, "run", "start", "pr.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "the task's pull request is open", func() bool {
		var v struct {
			Tasks []struct {
				PR      int    `json:"pr"`
				PRError string `json:"pr_error"`
			}
		}
		require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "run", "status", "pr", "--json")), &v))
		require.Empty(t, v.Tasks[0].PRError)
		return v.Tasks[0].PR == 7
	})
	branch := e.Find(repo, "pr-feat").Branch
	require.Equal(t, e.Git(repo, "rev-parse", branch), e.Git(bare, "rev-parse", branch), "the branch was pushed")
	calls := e.GhCalls("pr", "create")
	require.Len(t, calls, 1, "one pull request")
	require.Contains(t, strings.Join(calls[0].Argv, " "), "--head "+branch+" --base main")
	require.Contains(t, e.MustOwt(repo, "list"), "PR #7 open")

	// pr needs a run without into.
	e.WriteFile(repo, "bad.toml", "[run]\ninto = \"feat/x\"\npr = true\n[[task]]\nid = \"a\"\ntask = \"a\"\n")
	r := e.Owt(repo, "run", "start", "bad.toml", "--dry-run")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "run.pr: needs a run without into")
}

// The run finishes while a pull request is still being opened (gh is
// slow, and they go one at a time): the other done task still gets its
// own, after the run is over.
func TestAFinishedRunStillOpensEveryDoneTasksPullRequest(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.SetGh(noPRYet,
		fixture.GhFixture{Args: []string{"pr", "create"}, Delay: "4s", Stdout: "https://github.com/o/app/pull/7\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("x", "", checkRun("test", "IN_PROGRESS", "", 1))})
	e.WriteFile(repo, "two.toml", `[run]
tool = "claude"
pr = true
max_concurrent = 2

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"

[[task]]
id = "b"
task = "`+taskScript("b.txt")+`"
`)
	e.MustOwt(repo, "run", "start", "two.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(90*time.Second, "both tasks have their pull request", func() bool {
		v := e.runStatus(repo, "two")
		return len(e.GhCalls("pr", "create")) == 2 && v.State == "finished"
	})
	heads := map[string]bool{}
	for _, c := range e.GhCalls("pr", "create") {
		heads[strings.Join(c.Argv, " ")] = true
	}
	for _, id := range []string{"a", "b"} {
		branch := e.Find(repo, "two-"+id).Branch
		found := false
		for argv := range heads {
			found = found || strings.Contains(argv, "--head "+branch+" ")
		}
		require.True(t, found, "a pull request for %s", branch)
	}
}
