package workspace

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/state"
)

// ChangeStatus applies the change decide returns for the record called
// name, as state.Store.ChangeStatus does on the ledger's store. The caller
// publishes.
func (w *Ledger) ChangeStatus(name string, decide func(*state.Record) (state.StatusChange, bool)) (*state.Record, bool, error) {
	return w.Store.ChangeStatus(name, decide)
}

// FollowSession records that the session of the worktree called name,
// still the one with id sessionID, is now called session (the user ran
// rename-session). A record whose session is another by now is left.
func (w *Ledger) FollowSession(name, sessionID, session string) error {
	err := w.Store.Update(func(f *state.File) error {
		r, ok := f.Records[name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, name)
		}
		if r.SessionID != sessionID || r.Session == session {
			return state.ErrNoChange
		}
		r.Session = session
		return nil
	})
	if err != nil {
		return fmt.Errorf("note the new name %s of the session of %s: %w", session, name, err)
	}
	return nil
}

// SetBaseCommit records commit as where the branch of the worktree called
// name starts: owt sync moved a branch with no commits of its own there.
func (w *Ledger) SetBaseCommit(name, commit string) error {
	err := w.Store.Update(func(f *state.File) error {
		r, ok := f.Records[name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, name)
		}
		r.BaseCommit = commit
		return nil
	})
	if err != nil {
		return fmt.Errorf("record where %s starts: %w", name, err)
	}
	return nil
}

// NoteScreen keeps a screen reading that confirms the recorded status
// (the monitor's, once the reading has held): it writes only when the
// record has no evidence of the screen for this status yet, or another
// rule decides now. The rows are those of the first such reading: a
// spinner's timer changes its row every second, and that is no reason to
// write. It reports whether it wrote.
func (w *Ledger) NoteScreen(name string, ev state.ScreenEvidence) (bool, error) {
	wrote := false
	err := w.Store.Update(func(f *state.File) error {
		r, ok := f.Records[name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, name)
		}
		if r.Status != ev.Status || ev.At.Before(r.EventAt) {
			return state.ErrNoChange
		}
		if ScreenNoted(r, ev.Status, ev.Rule) {
			return state.ErrNoChange
		}
		if old := r.Screen; old != nil && old.Set && old.Status == ev.Status && !old.At.Before(r.StatusSince) {
			ev.Set, ev.Was, ev.WasSource, ev.At = true, old.Was, old.WasSource, old.At // still the reading that set it
		}
		r.Screen, wrote = &ev, true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("note what the screen of %s shows: %w", name, err)
	}
	return wrote, nil
}

// ScreenNoted reports whether r already holds the screen's evidence for
// its current status st under rule.
func ScreenNoted(r *state.Record, st state.Status, rule string) bool {
	old := r.Screen
	return old != nil && old.Status == st && old.Rule == rule && !old.At.Before(r.StatusSince)
}
