package run

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

func pacedRun(t *testing.T, extra string) (*Run, *TaskRun) {
	t.Helper()
	p, err := Parse("p.toml", []byte(`
[run]
timeout = "10s"
`+extra+`
[[task]]
id = "a"
task = "a"
[[task]]
id = "b"
task = "b"
depends_on = ["a"]
`))
	require.NoError(t, err)
	r := NewRun("r", "/repo", "main", p, time.Unix(0, 0))
	a, _ := r.Task("a")
	a.State, a.Name, a.Attempt, a.Since = Running, "r-a", 1, time.Unix(0, 0)
	return r, a
}

func TestUserOnThePaneHoldsTheClock(t *testing.T) {
	r, a := pacedRun(t, "")
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	r.PaceTask(a, AgentPace{Status: state.Idle, LastActivity: at(0)}, nil, at(0))
	evs := r.PaceTask(a, AgentPace{Status: state.Idle, UserOnPane: true}, nil, at(2))
	require.Contains(t, evs[0].Detail, "you are on its pane")
	r.PaceTask(a, AgentPace{Status: state.Idle, UserOnPane: true}, nil, at(500))
	require.Equal(t, 2*time.Second, a.Clock.Active(at(500)))
	require.Equal(t, Running, a.State)
}

func TestStallIsATimeoutOfSignsOfLife(t *testing.T) {
	r, a := pacedRun(t, `stall = "5s"`)
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	r.PaceTask(a, AgentPace{Status: state.Working, LastActivity: at(0)}, nil, at(0))
	require.Empty(t, r.PaceTask(a, AgentPace{Status: state.Working, LastActivity: at(3)}, nil, at(7)), "a hook 4s ago")
	// Idle is not stalled: the judge's settle covers it.
	require.Empty(t, r.PaceTask(a, AgentPace{Status: state.Idle, LastActivity: at(3)}, nil, at(8)))
	evs := r.PaceTask(a, AgentPace{Status: state.Working, LastActivity: at(3)}, nil, at(8))
	require.Equal(t, NeedsYou, a.State)
	require.Equal(t, FailStall, a.Failure.Class)
	require.Contains(t, evs[0].Detail, "no hook or screen change for 5s")

	r, a = pacedRun(t, `stall = "0s"`)
	r.PaceTask(a, AgentPace{Status: state.Working}, nil, at(0))
	require.Empty(t, r.PaceTask(a, AgentPace{Status: state.Working}, nil, at(9)), "stall = 0 never stalls")
}

func TestOnTimeoutRetryBacksOff(t *testing.T) {
	r, a := pacedRun(t, `on_timeout = "retry"`)
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	r.PaceTask(a, AgentPace{Status: state.Working, LastActivity: at(0)}, nil, at(0))
	evs := r.PaceTask(a, AgentPace{Status: state.Working, LastActivity: at(10)}, func() float64 { return 0.5 }, at(10))
	require.Equal(t, Backoff, a.State)
	require.Equal(t, "backoff", evs[0].Event)
	require.Contains(t, evs[0].Detail, "timeout: timed out after 10s")
	require.Equal(t, at(10).Add(DefaultBackoff), a.NextStart)
	require.Equal(t, "r-a", a.Name, "the worktree is kept for the retry")
}

func TestPlanOnTimeoutAndStallAreChecked(t *testing.T) {
	_, err := Parse("p.toml", []byte("[run]\non_timeout = \"kill\"\nstall = \"soon\"\n[[task]]\nid = \"a\"\ntask = \"a\"\n"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "run.on_timeout: must be one of needs_you, retry, not \"kill\"")
	require.Contains(t, err.Error(), "run.stall")
	p, err := Parse("p.toml", []byte("[[task]]\nid = \"a\"\ntask = \"a\"\n"))
	require.NoError(t, err)
	require.Equal(t, Duration(DefaultStall), p.Stall)
	require.Equal(t, "", p.OnTimeout, "needs_you")
}

func TestRetryPromptCarriesTheFailureTheTailAndTheTask(t *testing.T) {
	p := RetryPrompt("add the models", 2, &Failure{Class: FailAgent, Error: untrusted.From("tests fail")}, "line one\n!exec rm -rf /\n")
	require.Contains(t, p, "(attempt 2): the previous attempt failed (agent: tests fail)")
	require.Contains(t, p, "| line one\n| !exec rm -rf /\n", "the pane is quoted: no line starts as input")
	require.Contains(t, p, "Your task:\nadd the models\n")
	require.Contains(t, p, "owt done --summary")
	require.Contains(t, p, "keeps the earlier attempt's commits")
}

func TestSettledStartsAndTaskCommands(t *testing.T) {
	now := time.Unix(50, 0)
	r, a := pacedRun(t, "")
	a.State, a.Name, a.Attempt = Starting, "", 2
	evs := r.ApplySettled(a, Settled{}, now)
	require.Equal(t, Pending, a.State)
	require.Equal(t, 1, a.Attempt, "the cut-off attempt is not counted; the earlier one is")
	require.Equal(t, "pending", evs[0].Event)

	a.State = Starting
	r.ApplySettled(a, Settled{Rec: &state.Record{Name: "r-a", Branch: "owt/r-a"}}, now)
	require.Equal(t, Running, a.State)
	require.Equal(t, "owt/r-a", a.Branch)

	// Exhausted, the dependent blocked; skip releases it; retry a finished run reopens it.
	a.Attempt = r.Plan.Retry.MaxAttempts
	_, err := r.Fail("a", Failure{Class: FailCrash, Error: untrusted.From("exit 1")}, func() float64 { return 0 }, now)
	require.NoError(t, err)
	b, _ := r.Task("b")
	require.Equal(t, Blocked, b.State)
	_, err = r.TaskCommand("skip", "nope", now)
	require.ErrorIs(t, err, ErrNoSuchTask)
	evs, err = r.TaskCommand("skip", "a", now)
	require.NoError(t, err)
	require.Equal(t, []string{"skipped", "released"}, eventNames(evs))
	require.Equal(t, Pending, b.State)

	b.State = Failed
	r.State = Finished
	evs, err = r.TaskCommand("retry", "b", now)
	require.NoError(t, err)
	require.Equal(t, []string{"retry", "reopened"}, eventNames(evs))
	require.Equal(t, Active, r.State)
}

// A host out of reach holds its task's clock: the timeout is not spent
// while nothing is known of the agent, and it runs again once it is back.
func TestAnUnreachableHostHoldsTheClock(t *testing.T) {
	r, a := pacedRun(t, "")
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	r.PaceTask(a, AgentPace{Status: state.Working, LastActivity: at(0)}, nil, at(0))
	evs := r.PaceTask(a, AgentPace{Unreachable: "box"}, nil, at(3))
	require.Contains(t, evs[0].Detail, "its host box is unreachable")
	require.Empty(t, r.PaceTask(a, AgentPace{Unreachable: "box"}, nil, at(600)), "out of reach far past the timeout")
	require.Equal(t, Running, a.State)
	require.Equal(t, 3*time.Second, a.Clock.Active(at(600)))
	r.PaceTask(a, AgentPace{Status: state.Working, LastActivity: at(600)}, nil, at(600))
	r.PaceTask(a, AgentPace{Status: state.Working, LastActivity: at(607)}, nil, at(608))
	require.Equal(t, NeedsYou, a.State, "back: its clock runs again, to the timeout")
	require.Equal(t, FailTimeout, a.Failure.Class)
}
