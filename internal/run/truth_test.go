package run

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// A pane's tail is quoted without the padding tmux keeps: no trailing
// blanks on a line and no runs of empty lines (a TUI's empty screen).
func TestRetryPromptQuotesThePaneWithoutItsPadding(t *testing.T) {
	pad := strings.Repeat(" ", 120)
	tail := "╭─ agent" + pad + "\n" + strings.Repeat(pad+"\n", 6) + "│ > ask" + pad + "\n\n\n" + "└ done  \t\n"
	p := RetryPrompt("add the models", 2, &Failure{Class: FailCrash, Error: untrusted.From("exit 1")}, tail)
	require.Contains(t, p, "| ╭─ agent\n| │ > ask\n| └ done\n")
	require.NotContains(t, p, "  \n")
	require.NotContains(t, p, "| \n")
	require.Less(t, len(p), len(DoneInstruction)+400, "the padding is gone: %q", p)

	// A TUI's input box as wide as the pane: its rules and inner blanks
	// are cut short; the words in it are kept.
	rule := strings.Repeat("─", 198)
	box := "╭" + rule + "╮\n│ > " + strings.Repeat(" ", 194) + "│\n╰" + rule + "╯\n  ? for shortcuts   ·   esc\n"
	p = RetryPrompt("t", 2, nil, box)
	require.Contains(t, p, "| ╭───╮\n| │ >   │\n| ╰───╯\n|   ? for shortcuts   ·   esc\n")
}

// owt run retry of a task whose attempts ran out gives it one more: the
// count it shows never goes down, and the next failure ends it.
func TestRetryOfAnExhaustedTaskNeverLowersItsAttemptCount(t *testing.T) {
	r := NewRun("r", "/repo", "main", chainPlan(t), t0)
	a := set(r, "a", Running)
	a.Attempt = 2 // max_attempts = 2
	_, err := r.Fail("a", Failure{Class: FailCrash}, fixed(0.5), t0)
	require.NoError(t, err)
	require.Equal(t, Failed, a.State)

	_, err = r.Retry("a", t0)
	require.NoError(t, err)
	require.Equal(t, 2, a.Attempt, "attempts so far: still 2")
	require.Equal(t, 3, r.AttemptsOf(a), "one more than the plan gave")
	a.Attempt, a.State = 3, Running // the engine started it
	_, err = r.Fail("a", Failure{Class: FailCrash}, fixed(0.5), t0)
	require.NoError(t, err)
	require.Equal(t, Failed, a.State, "the retry's attempt was the last")
}

// A run ends failed while a task failed or is blocked, finished once the
// user skipped or cancelled what held it; a retry reopens it, and the bar
// keeps a failed run with ▲ for each task that needs the user.
func TestARunEndsFailedUntilTheUserActs(t *testing.T) {
	now := time.Unix(300, 0)
	r := engineRun(t, "") // b depends on a
	a, _ := r.Task("a")
	a.State, a.Attempt = Running, r.Plan.Retry.MaxAttempts
	_, err := r.Fail("a", Failure{Class: FailAgent, Error: untrusted.From("no")}, fixed(0), now)
	require.NoError(t, err)
	evs := r.Finish(now)
	require.Equal(t, RunFailed, r.State, "a failed, b blocked by it")
	require.Equal(t, []string{"failed"}, eventNames(evs))
	require.Equal(t, "✗r 0/2 #[fg=black,bg=yellow,bold] ▲1 #[default]", BarText([]*Run{r}, r.Socket), "b waits on a: one needs you")
	_, _, err = r.SetState(Paused, now)
	require.Error(t, err, "nothing to pause: the user retries or skips")

	// The user cancels a: nothing failed any more, and b waits only on
	// the user's own choice. The run is finished, saying what did not run.
	evs, err = r.TaskCommand("cancel", "a", now)
	require.NoError(t, err)
	require.Equal(t, Finished, r.State, "nothing failed: the user cancelled a")
	require.Equal(t, "not run: b, which wait on a cancelled task; 'owt run retry' a cancelled task goes on", r.Why)
	require.Contains(t, eventNames(evs), "finished")
	require.Empty(t, BarText([]*Run{r}, r.Socket), "nothing needs the user")

	evs, err = r.TaskCommand("retry", "a", now)
	require.NoError(t, err)
	require.Equal(t, Active, r.State)
	require.Contains(t, eventNames(evs), "reopened")
	require.Equal(t, "⏵r 0/2", BarText([]*Run{r}, r.Socket))

	a.State = Skipped
	b, _ := r.Task("b")
	b.State = Done
	require.Equal(t, []string{"finished"}, eventNames(r.Finish(now)))
	require.Empty(t, r.Why)
	require.Empty(t, BarText([]*Run{r}, r.Socket))
}
