package engine

import (
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/stretchr/testify/require"
)

func TestTimeWaitingForTheUserIsNotCounted(t *testing.T) {
	r, a := pacedRun(t, "")
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	working := func(s int) run.AgentPace { return run.AgentPace{Status: state.Working, LastActivity: at(s)} }
	waiting := run.AgentPace{Status: state.Waiting, LastActivity: at(4)}

	require.Len(t, r.PaceTask(a, working(0), nil, at(0)), 1, "the clock starts")
	require.Empty(t, r.PaceTask(a, working(3), nil, at(4)))
	evs := r.PaceTask(a, waiting, nil, at(4))
	require.Contains(t, evs[0].Detail, "held at 4s: the agent waits for you")
	// An hour waiting for the user: no timeout.
	require.Empty(t, r.PaceTask(a, waiting, nil, at(3604)))
	require.Equal(t, 4*time.Second, a.Clock.Active(at(3604)))
	require.Equal(t, run.Running, a.State)

	require.Len(t, r.PaceTask(a, working(3604), nil, at(3604)), 1, "answered: the clock runs again")
	require.Empty(t, r.PaceTask(a, working(3609), nil, at(3609)))
	evs = r.PaceTask(a, working(3610), nil, at(3610))
	require.Equal(t, run.NeedsYou, a.State, "10s of active time")
	require.Equal(t, "needs_you", evs[0].Event)
	require.Contains(t, evs[0].Detail, "timed out after 10s of active time; the agent is left running: 'owt run retry r a' restarts it")
	require.Equal(t, run.FailTimeout, a.Failure.Class)
	require.Equal(t, 1, a.Attempt, "no new attempt: the agent is left running")
	require.Empty(t, r.PaceTask(a, working(3700), nil, at(3700)), "once")

	// The judge moves it only when the agent finished on evidence.
	require.Empty(t, apply(r, judged{id: "a", name: "r-a", was: run.NeedsYou, v: run.Verdict{Action: run.KeepWaiting}}, at(3701)))
	require.Empty(t, apply(r, judged{id: "a", name: "r-a", was: run.NeedsYou, v: run.Verdict{Action: run.AskUser, Why: "waits"}}, at(3701)))
	require.Equal(t, run.NeedsYou, a.State)
	evs = apply(r, judged{id: "a", name: "r-a", was: run.NeedsYou, v: run.Verdict{Action: run.MarkDone, Evidence: run.Evidence{Signal: "owt done", Commits: 1}}}, at(3702))
	require.Equal(t, "done", evs[0].Event)
}
