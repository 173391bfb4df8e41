package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// soloWithPR makes a --no-agent worktree called solo with a commit of its
// own and opens its pull request (#7) through the fake gh; the monitor
// then polls it every second. The fake gh serves pr view with view.
func (e *Env) soloWithPR(repo, view string) {
	e.t.Helper()
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	e.withRemote(repo)
	e.MustOwt(repo, "tmux", "init")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "solo", "--", "My own work")
	e.commitIn(e.Find(repo, "solo").Path, "mine.txt", "mine\n", "my own commit")
	e.SetGh(noPRYet, createFixture, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: view})
	e.MustOwt(repo, "pr", "solo")
}

// What gh says is text from elsewhere: owt list and the switch picker
// draw it inert, so a review decision carrying an escape sequence cannot
// retitle the user's terminal (or do anything else to it).
func TestOwtListDrawsThePullRequestGhDescribesAsPlainText(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("app")
	hostile := "\x1b]0;TITLE\x07"
	e.soloWithPR(repo, prView("aaaaaaa1", hostile, checkRun("test", "COMPLETED", "SUCCESS", 101)))

	e.Eventually(60*time.Second, "the poll recorded the review", func() bool {
		pr := e.prItem(repo, "solo").PR
		return pr != nil && strings.Contains(pr.Review, "TITLE")
	})
	out := e.MustOwt(repo, "list")
	require.Contains(t, out, "PR #7 open, checks pass")
	require.Contains(t, out, "]0;title", "the text is shown, inert")
	require.NotContains(t, out, "\x1b", "no escape reaches the terminal")
	require.NotContains(t, out, "\x07")

	p := e.pane(repo, owtBin, "popup", "switch")
	require.Contains(t, e.WaitScreen(p, "1/1"), "]0;title")
	require.NotContains(t, e.Tmux("display-message", "-p", "-t", p, "#{pane_title}"), "title", "the picker's pane kept its title")
	e.keys(p, "Escape")
	e.waitClosed(p)
}

// owt pr that adopts an open pull request prints the URL gh gave, inert.
func TestOwtPRPrintsTheURLGhGaveAsPlainText(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "q1", "--", "My own work")
	e.commitIn(e.Find(repo, "q1").Path, "mine.txt", "mine\n", "my own commit")
	view := strings.Replace(prView("aaaaaaa1", ""), "pull/7", "pull/7\\u001b]0;TITLE\\u0007", 1)
	e.SetGh(fixture.GhFixture{Args: []string{"pr", "list"}, Stdout: prList(view)}, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: view})

	out := e.MustOwt(repo, "pr", "q1")
	require.Contains(t, out, "adopted pull request #7 for q1: https://github.com/o/app/pull/7]0;TITLE")
	require.NotContains(t, out, "\x1b")
	require.NotContains(t, out, "\x07")
}

// --base names a branch: anything else is bad usage, said in one line,
// and nothing is asked of gh or pushed.
func TestOwtPRRefusesABaseThatIsNotABranch(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	bare := e.withRemote(repo)
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "q1", "--", "My own work")
	e.commitIn(e.Find(repo, "q1").Path, "mine.txt", "mine\n", "my own commit")
	e.SetGh(noPRYet, createFixture)

	for _, base := range []string{"nosuchbranch", "HEAD~0"} {
		res := e.Owt(repo, "pr", "q1", "--base", base)
		require.Equal(t, 2, res.Code, "%s: bad usage: %s", base, res.Stderr)
		require.Equal(t, "owt: unknown base \""+base+"\": no such branch\n", res.Stderr)
		require.Empty(t, res.Stdout)
	}
	require.Empty(t, e.GhCalls(), "gh was not asked")
	require.False(t, e.remoteHas(bare, e.Find(repo, "q1").Branch), "nothing was pushed")
	require.Nil(t, e.prItem(repo, "q1").PR, "nothing recorded")
}

// A worktree made with --no-agent has no agent to name in the pull
// request's body.
func TestThePRBodyOfANoAgentWorktreeNamesTheWorktree(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "q1", "--", "My own work")
	e.commitIn(e.Find(repo, "q1").Path, "mine.txt", "mine\n", "my own commit")
	e.SetGh(noPRYet, createFixture)
	e.MustOwt(repo, "pr", "q1")

	calls := e.GhCalls("pr", "create")
	require.Len(t, calls, 1)
	body := argAfter(calls[0].Argv, "--body")
	require.Contains(t, body, "Opened by owt for the worktree q1, ")
	require.NotContains(t, body, "agent")
	require.NotContains(t, body, "()")
}

// argAfter is the argument after flag in argv ("" when there is none).
func argAfter(argv []string, flag string) string {
	for i, a := range argv {
		if a == flag && i+1 < len(argv) {
			return argv[i+1]
		}
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

// gh's stderr in owt pr's error is one short line, however long gh's is.
func TestOwtPRSaysGhsErrorInOneShortLine(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.shellWithCommits(repo, "feat", 1)
	huge := "GraphQL: " + strings.Repeat("x", 200<<10) + "\nsecond line\n"
	e.SetGh(fixture.GhFixture{Args: []string{"pr", "list"}, Stderr: huge, Exit: 1})

	r := e.Owt(repo, "pr", "feat")
	requireOneLineError(t, r, "gh pr list: GraphQL: xxx")
	require.Contains(t, r.Stderr, "nothing was pushed")
	require.Less(t, len(r.Stderr), 400, "one short line")
}

// gh's text about a pull request is kept the same way everywhere: control
// characters dropped, in owt pr --json as in owt list --json (before and
// after the monitor's poll).
func TestPRFieldsInJSONAreTheSameCleanTextEverywhere(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.MustOwt(repo, "tmux", "init")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "q1", "--", "My own work")
	e.commitIn(e.Find(repo, "q1").Path, "mine.txt", "mine\n", "my own commit")
	view := strings.Replace(prView("aaaaaaa1", ""), "pull/7", "pull/7\\u001b]0;TITLE\\u0007", 1)
	e.SetGh(fixture.GhFixture{Args: []string{"pr", "list"}, Stdout: prList(view)}, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: view})

	var opened struct{ URL string }
	out := e.MustOwt(repo, "pr", "q1", "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &opened), out)
	clean := "https://github.com/o/app/pull/7]0;TITLE"
	require.Equal(t, clean, opened.URL, "owt pr --json")
	require.Equal(t, clean, e.prItem(repo, "q1").PR.URL, "owt list --json as recorded")
	e.Eventually(60*time.Second, "the monitor polled it", func() bool { return len(e.GhCalls("pr", "view")) >= 2 })
	require.Equal(t, clean, e.prItem(repo, "q1").PR.URL, "owt list --json after a poll")
}
