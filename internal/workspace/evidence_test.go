package workspace

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

func evidenceLedger(t *testing.T) *Ledger {
	t.Helper()
	store := &state.Store{Repo: "/r", Path: filepath.Join(t.TempDir(), "r.json")}
	require.NoError(t, store.Update(func(f *state.File) error {
		f.Records["a"] = &state.Record{Name: "a", Repo: "/r", Status: state.Starting, Source: state.FromOwt}
		return nil
	}))
	return &Ledger{Store: store, Now: time.Now}
}

func get(t *testing.T, w *Ledger) *state.Record {
	t.Helper()
	f, err := w.Store.Load()
	require.NoError(t, err)
	return f.Records["a"]
}

// The hook's event goes into the record's ring in the write the change
// makes; the ring keeps the last HookRing; a change that writes nothing
// keeps nothing.
func TestHookEventsRingInTheSameWrite(t *testing.T) {
	w := evidenceLedger(t)
	at := time.Now()
	hook := func(ev string, st state.Status, when time.Time) bool {
		_, changed, err := w.ChangeStatus("a", func(*state.Record) (state.StatusChange, bool) {
			return state.StatusChange{Status: st, Source: state.FromHook, At: when, Hook: &state.HookEvent{Event: ev, Status: st, At: when}}, true
		})
		require.NoError(t, err)
		return changed
	}
	for i := 0; i < 12; i++ {
		st := []state.Status{state.Working, state.Idle}[i%2]
		require.True(t, hook([]string{"UserPromptSubmit", "Stop"}[i%2], st, at.Add(time.Duration(i)*time.Second)))
	}
	r := get(t, w)
	require.Len(t, r.Hooks, state.HookRing)
	require.Equal(t, at.Add(4*time.Second).UTC(), r.Hooks[0].At.UTC(), "the oldest went")
	require.Equal(t, "Stop", r.Hooks[state.HookRing-1].Event)

	// The same status again within a second: no write, nothing kept.
	require.False(t, hook("Notification", state.Idle, at.Add(11*time.Second+time.Millisecond)))
	require.Equal(t, "Stop", get(t, w).Hooks[state.HookRing-1].Event)
}

// The screen's reading is kept when it sets the status (with what it
// corrected) and when it confirms one (once per rule); a status a hook
// then changes drops it.
func TestScreenEvidenceSetConfirmedAndDropped(t *testing.T) {
	w := evidenceLedger(t)
	at := time.Now()
	_, _, err := w.ChangeStatus("a", func(*state.Record) (state.StatusChange, bool) {
		return state.StatusChange{Status: state.Working, Source: state.FromHook, At: at}, true
	})
	require.NoError(t, err)
	ev := state.ScreenEvidence{Status: state.Idle, Rule: "claude/prompt", Lines: []untrusted.Untrusted{untrusted.From("│ >")}, Interrupted: true}
	_, changed, err := w.ChangeStatus("a", func(*state.Record) (state.StatusChange, bool) {
		return state.StatusChange{Status: state.Idle, Source: state.FromScreen, At: at.Add(2 * time.Second), Screen: &ev}, true
	})
	require.NoError(t, err)
	require.True(t, changed)
	r := get(t, w)
	require.NotNil(t, r.Screen)
	require.True(t, r.Screen.Set)
	require.Equal(t, state.Working, r.Screen.Was)
	require.Equal(t, state.FromHook, r.Screen.WasSource)

	// The same rule again: nothing to write, and the reading that set it stays.
	wrote, err := w.NoteScreen("a", state.ScreenEvidence{Status: state.Idle, Rule: "claude/prompt", At: at.Add(4 * time.Second)})
	require.NoError(t, err)
	require.False(t, wrote)
	require.True(t, get(t, w).Screen.Set)

	// A hook changes the status: the screen's word was about another one.
	_, _, err = w.ChangeStatus("a", func(*state.Record) (state.StatusChange, bool) {
		return state.StatusChange{Status: state.Waiting, Source: state.FromHook, At: at.Add(5 * time.Second)}, true
	})
	require.NoError(t, err)
	require.Nil(t, get(t, w).Screen)

	// The screen confirms the hook's waiting: kept, not as a setter.
	wrote, err = w.NoteScreen("a", state.ScreenEvidence{Status: state.Waiting, Rule: "claude/permission", At: at.Add(7 * time.Second)})
	require.NoError(t, err)
	require.True(t, wrote)
	r = get(t, w)
	require.False(t, r.Screen.Set)
	require.Equal(t, "claude/permission", r.Screen.Rule)
	// A reading of another status than the record's is not kept.
	wrote, err = w.NoteScreen("a", state.ScreenEvidence{Status: state.Idle, Rule: "claude/prompt", At: at.Add(8 * time.Second)})
	require.NoError(t, err)
	require.False(t, wrote)
}
