package status

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
)

// Gemini CLI fires AfterAgent after an Esc too: idle by its hook, under a
// stopped turn's mark drawn in that turn, is interrupted (issue 32 item
// 12); a mark the screen held since before the turn began is an earlier
// turn's, and the hook's end of this one stands.
func TestStoppedUnderHook(t *testing.T) {
	start := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	rec := &state.Record{Status: state.Idle, Source: state.FromHook, StatusSince: start.Add(5 * time.Second),
		Hooks: []state.HookEvent{
			{Event: "BeforeAgent", Status: state.Working, At: start},
			{Event: "AfterAgent", Status: state.Idle, At: start.Add(5 * time.Second)},
		}}
	esc := Observation{Class: agent.ClassIdle, Interrupted: true, ClassSince: start.Add(4 * time.Second)}
	require.True(t, StoppedUnderHook(rec, esc))
	got, ok := Reconcile(rec, Observation{Class: agent.ClassIdle, Interrupted: true, ClassSince: esc.ClassSince,
		At: start.Add(7 * time.Second), Changed: esc.ClassSince}, time.Minute)
	require.True(t, ok)
	require.Equal(t, state.Idle, got)

	old := esc
	old.ClassSince = start.Add(-time.Minute) // idle on screen since an earlier turn's Esc
	require.False(t, StoppedUnderHook(rec, old), "a quick turn owt never saw run, under an old mark")
	noMark := esc
	noMark.Interrupted = false
	require.False(t, StoppedUnderHook(rec, noMark))
	done := *rec
	done.Interrupted = true
	require.False(t, StoppedUnderHook(&done, esc), "already said")
	screen := *rec
	screen.Source = state.FromScreen
	require.False(t, StoppedUnderHook(&screen, esc), "not a hook's end of turn")
}
