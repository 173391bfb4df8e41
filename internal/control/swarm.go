package control

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/swarm"
	"github.com/owt-tmux/owt/internal/untrusted"
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

// refuseTesterEdits refuses, unless force, to land host's worktree while
// its swarm's tester changed files that are not tests: landing ends the
// swarm, and that check is the swarm's end.
func refuseTesterEdits(w *workspace.Workspace, host *state.Record, force bool) error {
	if force || host.Swarm != nil {
		return nil
	}
	files, err := swarm.Of(w).TesterOutsideTests(host.Name)
	if err != nil || len(files) == 0 {
		return err
	}
	return fmt.Errorf("the swarm's tester in %s changed files that are not tests: %s; nothing was changed; check them, then pass --force",
		host.Name, untrusted.Some(files, workspace.ListedMax))
}
