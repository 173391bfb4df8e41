package status

import (
	"errors"
	"fmt"

	"github.com/owt-tmux/owt/internal/hook"
	"github.com/owt-tmux/owt/internal/state"
)

// ErrNotInWorktree marks a command that must run inside an owt worktree
// (owt done) run anywhere else.
var ErrNotInWorktree = errors.New("not inside an owt worktree")

// RecordDone keeps sig as the owt done of the agent it comes from: the
// worktree OWT_NAME and OWT_REPO name (the agent's session sets them),
// else the one holding dir. It returns the record as it now is.
func RecordDone(getenv func(string) string, dir string, sig state.DoneSignal) (*state.Record, error) {
	store, name, err := doneTarget(getenv, dir)
	if err != nil {
		return nil, err
	}
	var rec state.Record
	err = store.Update(func(f *state.File) error {
		r, ok := f.Records[name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, name)
		}
		r.Done = &sig
		rec = *r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("record owt done for %s: %w", name, err)
	}
	return &rec, nil
}

// doneTarget finds the record owt done is about.
func doneTarget(getenv func(string) string, dir string) (*state.Store, string, error) {
	if name, repo := getenv("OWT_NAME"), getenv("OWT_REPO"); name != "" && repo != "" {
		store := state.ForRepo(repo)
		if f, err := store.Peek(); err == nil && f.Records[name] != nil {
			return store, name, nil
		}
	}
	store, rec, err := hook.FindByPath(dir, "")
	if err != nil {
		return nil, "", fmt.Errorf("%w (%v)", ErrNotInWorktree, err)
	}
	return store, rec.Name, nil
}
