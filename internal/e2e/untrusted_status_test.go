package e2e

import (
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// What an agent said with owt done is its own words: owt status draws
// them inert (no escape sequence, no line of its own), and owt status
// --json keeps them as they came, for the consumer to judge.
func TestUntrustedOwtDoneTextIsDrawnInertByOwtStatus(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	it := newJSON(t, e, repo, "--tool", "claude", "--name", "d", "say hi")
	e.waitTurns("d", 1)

	hostile := "tests \x1b]0;PWNED\x07fail\r\nforged: line"
	r := e.Owt(it.Path+"/", "done", "--fail", hostile)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stdout, "\x1b")

	human := e.MustOwt(repo, "status", "d", "--lines", "0")
	require.NotContains(t, human, "\x1b", "no escape reaches the terminal")
	require.NotContains(t, human, "\x07")
	require.NotContains(t, human, "\r")
	require.NotContains(t, human, "\nforged", "the agent's words cannot forge a line")
	require.Contains(t, human, "owt done: failed (tests ]0;PWNEDfail forged: line)")

	done := e.doneOf(repo, "d")
	require.NotNil(t, done)
	require.Equal(t, hostile, done.Fail, "--json keeps the text as it came")
}

// A check's name is the workflow author's words, as gh gives them: the
// monitor's log line (and any notice) that names the failing check draws
// it inert.
func TestUntrustedCheckNameIsLoggedInert(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.SetGh(createFixture, fixture.GhFixture{Args: []string{"run", "view", "101", "--log-failed"}, Stdout: "--- FAIL: TestAlpha\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checkRun("te\x1b]0;PWNED\x07st", "COMPLETED", "FAILURE", 101))})
	e.agentWithPR(repo, "ci")

	e.Eventually(60*time.Second, "the CI failure reaches the agent", func() bool { return len(e.promptsWith("ci", "CI fails")) == 1 })
	require.NotContains(t, e.promptsWith("ci", "CI fails")[0], "\x1b")
	queued := logLinesWith(e.LogLines("monitor"), "queued a message")
	require.Len(t, queued, 1)
	require.Contains(t, queued[0], "te]0;PWNEDst failed on aaaaaaa", "the name is shown, inert")
	require.NotContains(t, e.OwtLog(), "\x1b", "no escape reaches the log")
	require.NotContains(t, e.OwtLog(), "\x07")
}

// A conflicting file's name is whoever committed it's words: the
// monitor's log line that names the conflict draws it inert.
func TestUntrustedConflictingFileNameIsLoggedInert(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.startAgent(repo, "clash", "say hi")
	e.waitTurns("clash", 1)
	hostile := "na\x1b[31mme.txt"
	e.commitIn(e.Find(repo, "clash").Path, hostile, "agent's\n", "agent side")
	e.commitIn(repo, hostile, "main's\n", "main side")
	e.MustOwt(repo, "send", "clash", "!write other.txt\n!commit other")

	e.Eventually(60*time.Second, "the conflict reaches the agent", func() bool { return len(e.promptsWith("clash", "now conflicts with main")) == 1 })
	queued := logLinesWith(e.LogLines("monitor"), "conflicts with main in")
	require.NotEmpty(t, queued)
	require.Contains(t, queued[0], "conflicts with main in na[31mme.txt", "the name is shown, inert")
	require.NotContains(t, e.OwtLog(), "\x1b", "no escape reaches the log")
}
