package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// doneJSON is the owt done signal as owt status --json shows it.
type doneJSON struct {
	Summary string    `json:"summary"`
	Fail    string    `json:"fail"`
	Blocked string    `json:"blocked"`
	At      time.Time `json:"at"`
}

func (e *Env) doneOf(repo, name string) *doneJSON {
	e.t.Helper()
	out := e.MustOwt(repo, "status", name, "--json", "--lines", "0")
	var v struct {
		Done *doneJSON `json:"done"`
	}
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v.Done
}

// execRun is one "!exec" of the fake agent, from its log.
type execRun struct {
	Argv   []string
	Exit   int
	Output string
}

func (e *Env) execRuns(name string) []execRun {
	e.t.Helper()
	data, _ := os.ReadFile(e.Log)
	var out []execRun
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct {
			Event, Tool, Agent string
			execRun
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Event == "tool" && ev.Tool == "exec" && ev.Agent == name {
			out = append(out, ev.execRun)
		}
	}
	return out
}

// waitTurns waits until the agent called name has ended n turns.
func (e *Env) waitTurns(name string, n int) {
	e.t.Helper()
	e.Eventually(20*time.Second, fmt.Sprintf("%d turn(s) of %s ended", n, name), func() bool {
		return len(e.HookRuns(name, "Stop")) >= n
	})
}

func TestOwtDoneIsRecordedShownAndClearedByTheNextTurn(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	// The agent commits and signals the end of its task, as owt's task
	// prompt will tell it to: through its shell tool, from its worktree.
	it := newJSON(t, e, repo, "--tool", "claude", "--name", "d",
		"!write a.txt\n!commit add a\n!exec "+owtBin+" done --summary added-a")
	e.waitTurns("d", 1)

	execs := e.execRuns("d")
	require.Len(t, execs, 1, "the fake agent ran owt done")
	require.Equal(t, 0, execs[0].Exit, execs[0].Output)
	require.Equal(t, "recorded for d: finished (owt still checks commits, a clean tree and the checks)\n", execs[0].Output)

	done := e.doneOf(repo, "d")
	require.NotNil(t, done, "owt status --json shows the signal")
	require.Equal(t, "added-a", done.Summary)
	require.Empty(t, done.Fail)
	require.Empty(t, done.Blocked)
	require.False(t, done.At.IsZero())
	human := e.MustOwt(repo, "status", "d", "--lines", "0")
	require.Contains(t, human, "owt done: finished added-a")

	// A new turn starts: the signal spoke for the last one.
	e.MustOwt(repo, "send", "d", "one more thing")
	e.waitTurns("d", 2)
	require.Nil(t, e.doneOf(repo, "d"), "a new turn clears owt done")

	// Without OWT_NAME (a plain shell), the worktree is found by cwd.
	r := e.Owt(it.Path+"/", "done", "--blocked", "which database?")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "recorded for d: blocked on a question (which database?)\n", r.Stdout)
	done = e.doneOf(repo, "d")
	require.NotNil(t, done)
	require.Equal(t, "which database?", done.Blocked)
}

func TestOwtDoneOutsideAWorktreeOrWithBothFailAndBlockedIsBadUsage(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	it := newJSON(t, e, repo, "--no-agent", "--name", "w")
	// Its shell settles from starting to idle on its own: compare after.
	e.Eventually(20*time.Second, "w idle", func() bool { return e.Find(repo, "w").Status == "idle" })
	before := e.MustOwt(repo, "status", "w", "--json", "--lines", "0")

	for _, tc := range []struct {
		dir  string
		args []string
	}{
		{e.Root, []string{"done", "--summary", "x"}},                 // not in any repo
		{repo, []string{"done"}},                                     // the main checkout is no owt worktree
		{it.Path, []string{"done", "--fail", "a", "--blocked", "b"}}, // at most one of the two
		{it.Path, []string{"done", "--fail", " "}},                   // a reason is needed
		{it.Path, []string{"done", "extra"}},                         // no arguments
	} {
		r := e.Owt(tc.dir, tc.args...)
		require.Equal(t, 2, r.Code, "%v in %s: %s", tc.args, tc.dir, r.Stdout)
		require.Empty(t, r.Stdout)
		require.Equal(t, 1, strings.Count(r.Stderr, "\n"), "one line: %q", r.Stderr)
		require.True(t, strings.HasPrefix(r.Stderr, "owt: "), r.Stderr)
	}
	require.Equal(t, before, e.MustOwt(repo, "status", "w", "--json", "--lines", "0"), "nothing recorded")
}
