package e2e

import (
	"encoding/json"
	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/run/engine"
	"github.com/owt-tmux/owt/internal/status"
)

// limitOf is the limit of name as owt list --json says it.
func (e *Env) limitOf(dir, name string) (status string, text string, reset time.Time) {
	e.t.Helper()
	var items []struct {
		Name, Status string
		Limit        *struct {
			Text  string
			Reset time.Time
		}
	}
	out := e.MustOwt(dir, "list", "--json")
	require.NoError(e.t, json.Unmarshal([]byte(out), &items), out)
	for _, it := range items {
		if it.Name == name {
			if it.Limit == nil {
				return it.Status, "", time.Time{}
			}
			return it.Status, it.Limit.Text, it.Limit.Reset
		}
	}
	e.t.Fatalf("no %s in %s", name, out)
	return
}

// Claude Code's usage limit: its StopFailure hook (error rate_limit) and
// its words on screen. The agent is limited, needs the user, with the
// reset time the tool printed, and no failed turn.
func TestClaudesUsageLimitIsLimitedWithItsResetTime(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "!limit Dec 31 at 9am")
	e.Eventually(30*time.Second, "a limited", func() bool { return e.Find(repo, "a").Status == "limited" })
	st, words, reset := e.limitOf(repo, "a")
	require.Equal(t, "limited", st)
	require.Equal(t, "You've hit your 5-hour limit · resets Dec 31 at 9am", words)
	require.Equal(t, time.December, reset.Local().Month())
	require.Equal(t, 31, reset.Local().Day())
	require.Equal(t, 9, reset.Local().Hour())
	require.Equal(t, "hook", e.Find(repo, "a").StatusSource)

	list := e.MustOwt(repo, "list")
	require.Contains(t, list, "limited (usage limit, resets ")
	require.NotContains(t, list, "turn failed", "a usage limit is no failed turn")
	e.Eventually(10*time.Second, "the bar marks a as limited", func() bool {
		return strings.Contains(e.Tmux("show-options", "-gv", "@owt-status-line"), status.Glyph("limited")+"a")
	})
	// owt wait --until waiting counts a usage limit as needing you.
	r := e.Owt(repo, "wait", "a", "--until", "waiting", "--timeout", "5s")
	require.Equal(t, 0, r.Code, r.Stdout+r.Stderr)

	// The user tells it to go on: working again, the limit forgotten.
	e.MustOwt(repo, "send", "a", "go on")
	e.Eventually(30*time.Second, "a idle after its next turn", func() bool { return e.Find(repo, "a").Status == "idle" })
	st, words, _ = e.limitOf(repo, "a")
	require.Equal(t, "idle", st)
	require.Empty(t, words)
}

// Codex has no hook for it: its screen says "■ You've hit your usage
// limit. Try again at …" where the turn ended, and owt reads it there.
func TestCodexsUsageLimitIsReadOffItsScreen(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	// The limit ends its first turn, before the monitor may have looked
	// at it at all: still this agent's turn, not history.
	e.MustOwt(repo, "new", "--tool", "codex", "--no-setup", "--name", "c", "!limit 11:59 PM")
	e.Eventually(40*time.Second, "c limited", func() bool { return e.Find(repo, "c").Status == "limited" })
	_, words, reset := e.limitOf(repo, "c")
	// A redraw reads the same words again: the reset stays where it was.
	e.Tmux("resize-window", "-t", "="+e.Find(repo, "c").Session+":", "-x", "150", "-y", "40")
	time.Sleep(3 * time.Second) // past the monitor's next looks at the redrawn screen
	_, _, again := e.limitOf(repo, "c")
	require.True(t, reset.Equal(again), "reset %v became %v", reset, again)
	require.NotContains(t, e.OwtLog(), "c finished its turn", "a usage limit is no finished turn")
	require.Equal(t, "You've hit your usage limit. Try again at 11:59 PM.", words)
	require.Equal(t, 23, reset.Local().Hour())
	require.Equal(t, 59, reset.Local().Minute())
	require.Equal(t, "screen", e.Find(repo, "c").StatusSource)
	require.Contains(t, e.MustOwt(repo, "status", "c"), "needs you: usage limit, resets ")
}

// A run whose agent hit a usage limit starts no new task on that tool
// until the reset; once it has passed, the limited agent is told once to
// go on, and the held task starts.
func TestALimitHoldsTheRunsNextStartAndTheAgentIsNudgedOnceAfterTheReset(t *testing.T) {
	e := NewEnv(t, fixture.Long())
	repo := e.NewRepo("app")
	// a hits a limit that resets at a whole minute at least 40 s away
	// (the next one could be a second away: c would never be seen held);
	// b finishes at once, which frees a slot for c, which must wait for
	// the reset.
	reset := time.Now().Add(40 * time.Second).Truncate(time.Minute).Add(time.Minute)
	e.WriteFile(repo, "l.toml", `[run]
max_concurrent = 2
tool = "claude"

[[task]]
id = "a"
task = "!limit `+strings.ToLower(reset.Format("3:04PM"))+`"

[[task]]
id = "b"
task = "`+taskScript("b.txt")+`"

[[task]]
id = "c"
task = "`+taskScript("c.txt")+`"
`)
	e.MustOwt(repo, "run", "start", "l.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "a limited and c held for it", func() bool {
		st := e.runStatus(repo, "l")
		for _, task := range st.Tasks {
			if task.ID == "c" && strings.Contains(task.Why, "usage limit") {
				return true
			}
		}
		return false
	})
	var aName string
	for _, task := range e.runStatus(repo, "l").Tasks {
		switch task.ID {
		case "a":
			require.NotNil(t, task.Name)
			aName = *task.Name
		case "c":
			require.Equal(t, "pending", task.State, "c not started while claude is limited (%s)", task.Why)
		}
	}
	require.Equal(t, "limited", e.Find(repo, aName).Status)

	// The reset passes: one nudge, then c starts.
	e.Eventually(time.Until(reset)+60*time.Second, "a nudged", func() bool { return len(e.promptsWith(aName, engine.NudgeText)) > 0 })
	e.Eventually(60*time.Second, "c started", func() bool {
		for _, task := range e.runStatus(repo, "l").Tasks {
			if task.ID == "c" && task.State != "pending" {
				return true
			}
		}
		return false
	})
	time.Sleep(3 * time.Second) // past the engine's next ticks: a second nudge would be typed by now
	require.Len(t, e.promptsWith(aName, engine.NudgeText), 1, "nudged once")
	var nudged int
	for _, ev := range e.runEvents(repo, "l") {
		if ev.Event == "nudged" {
			nudged++
		}
	}
	require.Equal(t, 1, nudged)
}

// A state file lost under agents that had exited, hit their usage limit
// or were waiting is rebuilt with those statuses (the sessions' own
// @owt-status), not as idle agents ready for the next instruction.
func TestRebuiltStateKeepsExitedLimitedAndWaiting(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "lim", "!limit Dec 31 at 9am")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "gone", "!exit 3")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "ask", "!ask echo hold")
	want := map[string]string{"lim": "limited", "gone": "exited", "ask": "waiting"}
	for name, st := range want {
		e.Eventually(30*time.Second, name+" "+st, func() bool { return e.Find(repo, name).Status == st })
	}
	items, _, _ := e.listAfterCorruptState(repo)
	require.Len(t, items, 3)
	for _, it := range items {
		require.Equal(t, want[it.Name], it.Status, "%s as rebuilt", it.Name)
	}
	require.Contains(t, e.MustOwt(repo, "list"), "limited (usage limit")
}
