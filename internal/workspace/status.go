package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/owt-tmux/owt/internal/state"
)

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:6]
}

// SetStatus records a status change for the worktree called name and
// publishes it to tmux. exitCode is kept only with state.Exited.
func (w *Workspace) SetStatus(name string, st state.Status, src state.Source, exitCode *int) (*state.Record, error) {
	var rec *state.Record
	changed := false
	err := w.Store.Update(func(f *state.File) error {
		r, ok := f.Records[name]
		if !ok {
			return fmt.Errorf("%w %q", ErrUnknownName, name)
		}
		changed = r.SetStatus(st, src, w.Now())
		if st == state.Exited {
			r.ExitCode = exitCode
			changed = true
		} else {
			r.ExitCode = nil
		}
		rec = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	if changed {
		w.publish(rec)
	}
	return rec, nil
}

// publish puts a record's status into tmux: the session's @owt-status user
// option (for users styling their own status line), then a status redraw.
// tmux being unreachable is not an error: the state file is the truth.
func (w *Workspace) publish(rec *state.Record) {
	if rec.SessionID == "" {
		return
	}
	if s, ok, err := w.Tmux.FindSession(rec.Session); err != nil || !ok || s.ID != rec.SessionID {
		return
	}
	_ = w.Tmux.SetOption(rec.SessionID, "@owt-status", string(rec.Status))
	_ = w.Tmux.SetOption(rec.SessionID, "@owt-name", rec.Name)
	_ = w.Tmux.SetOption(rec.SessionID, "@owt-repo", rec.Repo)
	_ = w.Tmux.RefreshStatus()
}
