package run

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A pane's tail is quoted without the padding tmux keeps: no trailing
// blanks on a line and no runs of empty lines (a TUI's empty screen).
func TestRetryPromptQuotesThePaneWithoutItsPadding(t *testing.T) {
	pad := strings.Repeat(" ", 120)
	tail := "╭─ agent" + pad + "\n" + strings.Repeat(pad+"\n", 6) + "│ > ask" + pad + "\n\n\n" + "└ done  \t\n"
	p := RetryPrompt("add the models", 2, &Failure{Class: FailCrash, Error: "exit 1"}, tail)
	require.Contains(t, p, "| ╭─ agent\n| │ > ask\n| └ done\n")
	require.NotContains(t, p, "  \n")
	require.NotContains(t, p, "| \n")
	require.Less(t, len(p), len(DoneInstruction)+400, "the padding is gone: %q", p)
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
