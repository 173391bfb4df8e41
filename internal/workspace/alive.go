package workspace

import (
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// AgentAlive reports whether the agent of r may still run: it has not
// exited and the session owt made for it is live on the tmux server that
// made it (asked on that server's socket, whichever server owt runs
// under). A shell (--no-agent) is no agent. When tmux does not answer it
// says alive: what asks (cleanup) removes worktrees, and must not do so
// under a running agent.
func (w *Workspace) AgentAlive(r *state.Record) bool {
	if r.NoAgent || r.Status == state.Exited {
		return false
	}
	tm := w.Tmux
	if r.Socket != "" {
		tm = &tmux.Client{Bin: w.Tmux.Bin, Socket: r.Socket}
	}
	s, ok, err := tm.FindSession(r.Session)
	if err != nil {
		return true
	}
	if !ok || (r.SessionID != "" && s.ID != r.SessionID) {
		return false
	}
	if r.Server != "" {
		// A restarted server hands out the same ids again.
		if id, err := tm.ServerIdentity(); err == nil && id != r.Server {
			return false
		}
	}
	return true
}
