package workspace

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/monitor/daemon"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// LiveSession returns the id of the record's tmux session, or "" when the
// server no longer has it.
func (w *Workspace) LiveSession(r *state.Record) (string, error) {
	s, ok, err := w.Tmux.FindSession(r.Session)
	if err != nil || !ok {
		return "", err
	}
	return s.ID, nil
}

// EnsureSession returns the record's live session, recreating it on the
// existing worktree when the tmux server lost it (after a reboot or a
// kill-server). The agent is not restarted with its task — that would run
// the task twice — so the new session holds a shell and the record says the
// agent exited.
func (w *Workspace) EnsureSession(r *state.Record) (string, error) {
	if id, err := w.LiveSession(r); err != nil || id != "" {
		return id, err
	}
	if err := w.Tmux.Available(); err != nil {
		return "", err
	}
	created, err := w.Tmux.NewSession(tmux.NewSession{
		Name:    r.Session,
		Dir:     r.Path,
		Env:     w.sessionEnv(r),
		Options: sessionOptions(r),
	})
	if err != nil {
		return "", fmt.Errorf("recreate session %s: %w", r.Session, err)
	}
	err = w.Store.Update(func(f *state.File) error {
		cur, ok := f.Records[r.Name]
		if !ok {
			return fmt.Errorf("%w %q", ErrUnknownName, r.Name)
		}
		cur.SessionID, cur.Pane, cur.Session = created.SessionID, created.PaneID, created.SessionName
		cur.Socket = daemon.SocketPath(w.Tmux)
		cur.Server = created.Server
		if !cur.NoAgent && cur.Status != state.Exited {
			cur.SetStatus(state.Exited, state.FromOwt, w.Now())
			cur.ExitCode = nil
		}
		*r = *cur
		return nil
	})
	if err != nil {
		_ = w.Tmux.KillSession(created.SessionID)
		return "", err
	}
	w.publish(r)
	return created.SessionID, nil
}
