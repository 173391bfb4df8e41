package lifecycle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// LiveSession returns the id of the record's tmux session on this server,
// or "" when no server has it any more. A session on another running tmux
// server is ErrOtherServer, saying how to get there.
func (w *Worktrees) LiveSession(r *state.Record) (string, error) {
	where, err := w.Locate(r)
	if err != nil {
		return "", err
	}
	switch where.Place {
	case workspace.Here:
		return where.SessionID, nil
	case workspace.Elsewhere:
		return "", fmt.Errorf("%s %w (%s): attach there with: tmux -S %s attach -t %s",
			r.Name, workspace.ErrOtherServer, where.Socket, where.Socket, where.SessionID)
	}
	return "", nil
}

// EnsureSession returns the record's live session, recreating it on the
// existing worktree when the tmux server lost it (after a reboot or a
// kill-server). A session on another tmux server that still runs is never
// recreated here (ErrOtherServer). An agent comes back on its own
// conversation (ResumeAgent: its tool's resume option; its task is not
// sent again), or, when its tool cannot resume, fresh with an account of
// the work; a shell (--no-agent), an agent that had exited by itself
// before (ExitedBefore), or one of a tool owt no longer knows, gets a
// session holding a shell, the record saying the agent exited.
func (w *Worktrees) EnsureSession(r *state.Record) (string, error) {
	switch CreateStateOf(r) {
	case InProgress:
		return "", fmt.Errorf("%s is still being created; try again in a moment", r.Name)
	case Interrupted:
		return "", fmt.Errorf("%s: owt new was interrupted before it finished; 'owt doctor --fix' removes what it left", r.Name)
	}
	if id, err := w.LiveSession(r); err != nil || id != "" {
		return id, err
	}
	if err := w.Tmux.Available(); err != nil {
		return "", err
	}
	if w.shellOnly(r) == "" {
		rec, err := w.ResumeAgent(r.Name, "")
		if rec != nil {
			*r = *rec
		}
		if err != nil && !errors.Is(err, ErrNotLost) {
			return "", err
		}
		return r.SessionID, nil
	}
	sv, err := w.Tmux.Survey()
	if err != nil {
		return "", err
	}
	size := w.sessionSize(sv)
	created, err := w.Tmux.NewSession(tmux.NewSession{
		Width:  size[0],
		Height: size[1],
		Name:   r.Session,
		Dir:    r.Path,
		Env:    w.sessionEnv(r),
	})
	if err != nil {
		if strings.Contains(err.Error(), "duplicate session") {
			return "", fmt.Errorf("recreate session %s: %s", r.Session, duplicateSession(r.Session))
		}
		return "", fmt.Errorf("recreate session %s: %w", r.Session, err)
	}
	if err := w.Tmux.MarkSession(created.SessionID, status.SessionOptions(r), nil); err != nil {
		_ = w.Tmux.KillSession(created.SessionID)
		return "", fmt.Errorf("recreate session %s: %w", r.Session, err)
	}
	err = w.Store.Update(func(f *state.File) error {
		cur, ok := f.Records[r.Name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, r.Name)
		}
		cur.SessionID, cur.Pane, cur.Session = created.SessionID, created.PaneID, created.SessionName
		cur.Socket = w.Tmux.ServerSocket()
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
	status.Publish(&w.Ledger, r)
	return created.SessionID, nil
}

// shellOnly says why EnsureSession gives r's lost session a shell and
// starts no agent in it, or "" when it starts the agent again.
func (w *Worktrees) shellOnly(r *state.Record) string {
	_, known := w.Tools[r.Tool]
	switch {
	case r.NoAgent:
		return "a worktree made with --no-agent"
	case r.Swarm != nil:
		return "a swarm's worktree (owt swarm start starts a new swarm)"
	case ExitedBefore(r):
		return "its agent had exited by itself before"
	case !known:
		return "owt no longer knows its tool " + r.Tool
	}
	return ""
}

// duplicateSession says what to do when a session of the name owt wants
// exists that owt cannot prove it made.
func duplicateSession(name string) string {
	return fmt.Sprintf("a session of that name exists that owt did not make (restored by tmux-resurrect?); rename or kill it (tmux kill-session -t '=%s'), then try again", name)
}
