package control

import (
	"context"
	"time"

	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// remoteQueueTimeout bounds asking the hosts for their finished agents.
const remoteQueueTimeout = time.Minute

// RemoteQueue is the queue's part on the hosts serving this repository:
// their idle and exited agents with commits or uncommitted work, each
// predicted by its host's owt check (against its base there) and queued
// after every worktree here (owt queue). A host that cannot be asked, and
// an agent still busy, are listed as skipped, with why.
func RemoteQueue(w *workspace.Workspace) (entries []land.QueueEntry, skipped []land.Skipped) {
	serving, err := hosts.Serving(w.Config, w.Repo.Root)
	if err != nil {
		return nil, []land.Skipped{{Name: "hosts", Reason: err.Error()}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteQueueTimeout)
	defer cancel()
	for _, h := range serving {
		clone, _ := h.Clone(w.Repo.Root)
		items, err := h.FreshAgents(ctx, clone)
		if err != nil {
			skipped = append(skipped, land.Skipped{Name: "@" + h.Name, Reason: "host " + h.Name + " unreachable: its agents are not queued"})
			continue
		}
		for _, it := range items {
			st := state.Status(it.Status)
			switch {
			case it.Ahead == 0 && it.Dirty == 0:
				skipped = append(skipped, land.Skipped{Name: it.Name + "@" + h.Name, Reason: "no changes"})
				continue
			case st != state.Idle && st != state.Exited:
				skipped = append(skipped, land.Skipped{Name: it.Name + "@" + h.Name, Reason: "agent is " + it.Status})
				continue
			}
			e := land.QueueEntry{Name: it.Name, Host: h.Name, Branch: it.Branch, Base: it.Base, Status: it.Status,
				Ahead: it.Ahead, Uncommitted: it.Dirty, Size: it.Insertions + it.Deletions, Clean: true}
			rep, err := checkOn(ctx, h, clone, it.Name)
			if err != nil {
				skipped = append(skipped, land.Skipped{Name: it.Name + "@" + h.Name, Reason: err.Error()})
				continue
			}
			for _, c := range rep.Conflicts {
				if c.Kind == "base" {
					e.Clean, e.Conflicts = false, c.Files
				}
			}
			e.Overlaps = len(rep.Overlaps)
			entries = append(entries, e)
		}
	}
	return entries, skipped
}

// ShipQueued ships a queue entry on a host (ShipRemote of it, which
// looks at the agent afresh and refuses a turn begun since).
func ShipQueued(w *workspace.Workspace, e land.QueueEntry, o LandOptions) (Landed, error) {
	h, err := hosts.Open(w.Config, e.Host)
	if err != nil {
		return Landed{}, err
	}
	return ShipRemote(w, h, e.Name, "", o)
}
