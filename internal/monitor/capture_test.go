package monitor

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// A fleet of quiet agents read whole at one tick is not read whole again
// at one tick forceCapture later (at 500 panes, a burst of 500 captures
// every 10 s): the unread ones are read a tick's share at a time, the
// longest unread first, and each within a few ticks of forceCapture.
func TestQuietPanesAreReadAgainSpreadOverTicks(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	m := &monitor{screen: map[string]*paneView{}}
	for i := 0; i < 500; i++ {
		id := fmt.Sprintf("%%%d", i)
		m.live = append(m.live, agentPane{rec: &state.Record{Name: id}, pane: tmux.PaneState{ID: id, Activity: t0.Add(-time.Hour)}})
	}
	read := func(now time.Time) []string {
		ids := m.toCapture(now)
		for _, id := range ids {
			if m.screen[id] == nil {
				m.screen[id] = &paneView{}
			}
			m.screen[id].captured = now
		}
		return ids
	}
	require.Len(t, read(t0), 500, "the first look reads every pane")
	for s := 1; s < 10; s++ {
		require.Empty(t, read(t0.Add(time.Duration(s)*time.Second)), "quiet and read %ds ago", s)
	}
	last := map[string]time.Time{}
	for _, ap := range m.live {
		last[ap.pane.ID] = t0
	}
	for s := 10; s < 60; s++ {
		now := t0.Add(time.Duration(s) * time.Second)
		ids := read(now)
		require.LessOrEqual(t, len(ids), 50, "a tenth at %ds", s)
		for _, id := range ids {
			require.LessOrEqual(t, now.Sub(last[id]), forceCapture+10*time.Second, "%s unread", id)
			last[id] = now
		}
	}
	for id, at := range last {
		require.Less(t, t0.Add(60*time.Second).Sub(at), forceCapture+10*time.Second, "%s last read at %s", id, at.Sub(t0))
	}

	// The longest unread first, whatever their order among the panes.
	for i, ap := range m.live {
		m.screen[ap.pane.ID].captured = t0.Add(time.Duration(1000-i) * time.Millisecond)
	}
	ids := m.toCapture(t0.Add(time.Hour))
	require.Len(t, ids, 50)
	require.Equal(t, "%499", ids[0])
	require.Equal(t, "%450", ids[49])

	// A pane with output since its last read is read at once, whatever
	// the share.
	m.live[7].pane.Activity = t0.Add(60 * time.Second)
	require.Contains(t, read(t0.Add(61*time.Second)), "%7")
}

// A hundred agents at work redraw their screens all the time: a tick
// reads half of them, the longest unread first, so each is read at
// least every other tick; fifty or fewer are all read every tick; a
// screen that stopped changing is read at the next tick.
func TestBusyPanesAreReadAtLeastEveryOtherTick(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	m := &monitor{screen: map[string]*paneView{}}
	for i := 0; i < 100; i++ {
		id := fmt.Sprintf("%%%d", i)
		m.live = append(m.live, agentPane{rec: &state.Record{Name: id}, pane: tmux.PaneState{ID: id}})
		m.screen[id] = &paneView{captured: t0}
	}
	last := map[string]time.Time{}
	for s := 1; s <= 10; s++ {
		now := t0.Add(time.Duration(s) * time.Second)
		for i := range m.live {
			m.live[i].pane.Activity = now // every screen redrawn this second
		}
		ids := m.toCapture(now)
		require.Len(t, ids, 50, "half of 100 at %ds", s)
		for _, id := range ids {
			if at, ok := last[id]; ok {
				require.Equal(t, 2*time.Second, now.Sub(at), "%s read every other tick", id)
			}
			last[id] = now
			m.screen[id].captured = now
		}
	}
	require.Len(t, last, 100)

	// Fifty at work: every one every tick.
	m.live = m.live[:50]
	now := t0.Add(11 * time.Second)
	for i := range m.live {
		m.live[i].pane.Activity = now
	}
	require.Len(t, m.toCapture(now), 50)
}
