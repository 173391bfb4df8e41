package workspace

import (
	"github.com/owt-tmux/owt/internal/state"
)

// AgentAlive reports whether the agent of r may still run: it has not
// exited and its session is live on this tmux server or on the other one
// that made it (see Locator). A shell (--no-agent) is no agent. When tmux
// does not answer it says alive: what asks (cleanup) removes worktrees,
// and must not do so under a running agent.
func (w *Workspace) AgentAlive(r *state.Record) bool {
	if r.NoAgent || r.Status == state.Exited {
		return false
	}
	where, err := w.Locate(r)
	if err != nil {
		return true
	}
	return where.Place != Gone
}
