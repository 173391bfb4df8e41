package control

import (
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// busyWorker is why the first busy swarm worker of host's worktree is
// busy, and its name; "" when none is.
func busyWorker(w *workspace.Workspace, host *state.Record) (busy, name string) {
	recs, err := w.Records()
	if err != nil {
		return "", ""
	}
	for _, r := range recs {
		if r.WorkerOf(host.Name) {
			if b := busyNow(w, r); b != "" {
				return b, r.Name
			}
		}
	}
	return "", ""
}
