package pane

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// A first turn owt never saw running, whose task the screen shows taken,
// ends as its marks say: finished (no error) or failed with its error;
// never "task not taken". A record that left "starting" is not touched.
func TestTurnEndedUnseenIsATurn(t *testing.T) {
	w := &runner{Workspace: newWorld(t).Workspace()}
	require.NoError(t, w.Store.Update(func(f *state.File) error {
		for _, n := range []string{"done", "failed"} {
			f.Records[n] = &state.Record{Name: n, Status: state.Starting, TaskPending: true}
		}
		f.Records["working"] = &state.Record{Name: "working", Status: state.Working}
		return nil
	}))
	none := agent.TurnMarks{}
	w.turnEndedUnseen("done", none, none)
	r, err := w.Get("done")
	require.NoError(t, err)
	require.Equal(t, state.Idle, r.Status)
	require.Empty(t, r.TurnError)
	require.False(t, r.TaskPending)

	w.turnEndedUnseen("failed", none, agent.TurnMarks{Failures: 1, Failure: "Content generator not initialized"})
	r, err = w.Get("failed")
	require.NoError(t, err)
	require.Equal(t, state.Idle, r.Status)
	require.Equal(t, untrusted.From("Content generator not initialized"), r.TurnError)

	w.turnEndedUnseen("working", none, none)
	r, err = w.Get("working")
	require.NoError(t, err)
	require.Equal(t, state.Working, r.Status)
}
