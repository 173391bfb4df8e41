package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// gh reads a branch that looks like a number as a pull request number:
// owt pr on branch "7" must not adopt pull request #7 of another branch,
// and the monitor follows the pull request it recorded by its number, not
// whatever the branch name selects.
func TestANumericBranchNeitherAdoptsNorFollowsAnotherPullRequest(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	bare := e.withRemote(repo)
	e.MustOwt(repo, "tmux", "init")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "seven", "--branch", "7", "Seven")
	e.commitIn(e.Find(repo, "seven").Path, "seven.txt", "7\n", "seventh")

	// PR #7 belongs to someone else's branch, and its CI fails.
	theirs := strings.Replace(prView("0ther", "", checkRun("test", "COMPLETED", "FAILURE", 101)), `"headRefName":"{arg2}"`, `"headRefName":"someone/else"`, 1)
	e.SetGh(noPRYet,
		fixture.GhFixture{Args: []string{"pr", "view", "7"}, Stdout: theirs},
		fixture.GhFixture{Args: []string{"pr", "create"}, Stdout: "https://github.com/o/app/pull/8\n"},
		fixture.GhFixture{Args: []string{"pr", "view", "8"}, Stdout: strings.ReplaceAll(prView("a1", "", checkRun("test", "IN_PROGRESS", "", 102)), "7", "8")},
		fixture.GhFixture{Args: []string{"run", "view"}, Stdout: "--- FAIL: TestTheirs\n"},
	)
	out := e.MustOwt(repo, "pr", "seven")
	require.Contains(t, out, "opened pull request #8 for seven", "a new pull request, not #7 adopted")
	require.True(t, e.remoteHas(bare, "7"))
	require.Len(t, e.GhCalls("pr", "create"), 1)

	e.Eventually(30*time.Second, "two polls of #8", func() bool { return len(e.GhCalls("pr", "view", "8")) >= 2 })
	it := e.prItem(repo, "seven")
	require.Equal(t, 8, it.PR.Number)
	require.Equal(t, "pending", it.PR.Checks)
	require.Empty(t, it.NeedsYou, "#7's failure is not this worktree's")
	require.Empty(t, e.GhCalls("pr", "view", "7"), "the branch name is never read as a number")
	require.Len(t, e.GhCalls("pr", "list", "--head", "7"), 1, "owt pr looked the branch up by name")
	require.Empty(t, e.GhCalls("run", "view"))
}

// A pull request that settled (its checks failed, its review approved, no
// new head) is still polled now and then: merged, it is seen merged, and
// what its CI escalated no longer needs you.
func TestASettledPullRequestIsStillPolledNowAndThen(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.MustOwt(repo, "tmux", "init")
	branch := e.shellWithCommits(repo, "mine", 1)
	head := e.Git(repo, "rev-parse", branch)
	e.SetGh(noPRYet, createFixture,
		fixture.GhFixture{Args: []string{"run", "view"}, Stdout: "--- FAIL: TestMine\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView(head, "APPROVED", checkRun("test", "COMPLETED", "FAILURE", 101))})
	e.MustOwt(repo, "pr", "mine")
	e.Eventually(30*time.Second, "it needs you", func() bool { return len(e.prItem(repo, "mine").NeedsYou) == 1 })

	e.SetGh(fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: strings.Replace(prView(head, "APPROVED", checkRun("test", "COMPLETED", "FAILURE", 101)), `"state":"OPEN"`, `"state":"MERGED"`, 1)})
	e.Eventually(40*time.Second, "seen merged", func() bool {
		pr := e.prItem(repo, "mine").PR
		return pr != nil && pr.State == "MERGED"
	})
	require.Empty(t, e.prItem(repo, "mine").NeedsYou, "a merged PR's CI no longer needs you")
}

// A failing check whose log gh cannot give yet (its workflow run still in
// progress) is held for a later poll, and goes to the agent with its log.
func TestACIFailureWaitsForItsLog(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.SetGh(createFixture,
		fixture.GhFixture{Args: []string{"run", "view", "101"}, Until: []string{"run", "view"}, Exit: 1,
			Stderr: "run 101 is still in progress; logs will be available when it is complete\n"},
		fixture.GhFixture{Args: []string{"run", "view", "101"}, Stdout: "test\tRun go test\t--- FAIL: TestAlpha\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checkRun("test", "COMPLETED", "FAILURE", 101))})
	e.agentWithPR(repo, "ci")

	e.Eventually(60*time.Second, "the failure reaches the agent", func() bool { return len(e.promptsWith("ci", "CI fails")) == 1 })
	msg := e.promptsWith("ci", "CI fails")[0]
	require.Contains(t, msg, "--- FAIL: TestAlpha", "sent with its log")
	require.NotContains(t, msg, "could not be read")
	require.Len(t, e.GhCalls("run", "view"), 2)
}

// owt pr records the pull request only on the worktree it opened it for:
// deleted while gh worked, and another worktree made under its name, that
// one gets nothing.
func TestPRRecordsNothingOnAnotherWorktreeOfTheSameName(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.shellWithCommits(repo, "feat", 1)
	e.SetGh(noPRYet, fixture.GhFixture{Args: []string{"pr", "create"}, Delay: "3s", Stdout: "https://github.com/o/app/pull/8\n"})

	done := make(chan fixture.Result, 1)
	go func() { done <- e.Owt(repo, "pr", "feat") }()
	e.Eventually(20*time.Second, "gh pr create is running", func() bool { return len(e.GhCalls("pr", "create")) == 1 })
	e.MustOwt(repo, "delete", "--force", "--yes", "feat")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "feat", "--branch", "other/feat", "Other work")

	r := <-done
	require.Equal(t, 1, r.Code, r.Stdout+r.Stderr)
	requireOneLineError(t, r, "feat was deleted meanwhile; the pull request of feat/feat is https://github.com/o/app/pull/8")
	require.Nil(t, e.prItem(repo, "feat").PR, "the new feat has no pull request")
}
