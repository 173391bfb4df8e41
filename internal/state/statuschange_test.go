package state

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/untrusted"
)

func TestOwtDoneIsClearedOnlyByANewTurn(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		prev    Status
		to      Status
		eventAt time.Time
		cleared bool
	}{
		{"idle → working: a new turn", Idle, Working, at.Add(time.Second), true},
		{"exited → working: the agent came back", Exited, Working, at.Add(time.Second), true},
		{"working → working: the same turn's next tool", Working, Working, at.Add(time.Second), false},
		{"waiting → working: the same turn goes on", Waiting, Working, at.Add(time.Second), false},
		{"idle → working, an event from before the signal", Idle, Working, at.Add(-time.Second), false},
		{"working → idle: the turn ends", Working, Idle, at.Add(time.Second), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Record{Status: tc.to, Done: &DoneSignal{Summary: untrusted.From("x"), At: at}}
			got := clearDoneOnNewTurn(r, tc.prev, StatusChange{Status: tc.to, At: tc.eventAt})
			require.Equal(t, tc.cleared, got)
			require.Equal(t, tc.cleared, r.Done == nil)
		})
	}
}
