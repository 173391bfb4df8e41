package statuschange

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

func TestOwtDoneIsClearedOnlyByANewTurn(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		prev    state.Status
		to      state.Status
		eventAt time.Time
		cleared bool
	}{
		{"idle → working: a new turn", state.Idle, state.Working, at.Add(time.Second), true},
		{"exited → working: the agent came back", state.Exited, state.Working, at.Add(time.Second), true},
		{"working → working: the same turn's next tool", state.Working, state.Working, at.Add(time.Second), false},
		{"waiting → working: the same turn goes on", state.Waiting, state.Working, at.Add(time.Second), false},
		{"idle → working, an event from before the signal", state.Idle, state.Working, at.Add(-time.Second), false},
		{"working → idle: the turn ends", state.Working, state.Idle, at.Add(time.Second), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &state.Record{Status: tc.to, Done: &state.DoneSignal{Summary: untrusted.From("x"), At: at}}
			got := clearDoneOnNewTurn(r, tc.prev, Change{Status: tc.to, At: tc.eventAt})
			require.Equal(t, tc.cleared, got)
			require.Equal(t, tc.cleared, r.Done == nil)
		})
	}
}
