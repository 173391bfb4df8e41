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
	// A new tmux server reuses ids from $0, so the id alone could name
	// another session: check the name first.
	if got, err := w.Tmux.Display(rec.SessionID, "#{session_name}"); err != nil || got != rec.Session {
		return
	}
	_ = w.Tmux.SetOptions(rec.SessionID, sessionOptions(rec))
	w.publishSummary()
	_ = w.Tmux.RefreshStatus()
}

// sessionOptions are the user options owt keeps on a worktree's session.
func sessionOptions(rec *state.Record) map[string]string {
	return map[string]string{
		"@owt-status": string(rec.Status),
		"@owt-name":   rec.Name,
		"@owt-repo":   rec.Repo,
	}
}
