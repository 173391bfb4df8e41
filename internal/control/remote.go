package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/inventory"
	"github.com/owt-tmux/owt/internal/merge"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// remoteLandTimeout bounds bringing a remote agent's branch home and
// tearing it down there.
const remoteLandTimeout = 5 * time.Minute

// MergeRemote brings the branch of an agent on a host home and merges it
// here, as Merge does for a local one: the same checks of the target and
// the same merge. Refused, changing nothing, while the agent works or
// waits (unless o.Force) or has uncommitted work there; --rebase and
// --leave-conflicts need its worktree, which is on the host. Unless
// o.Keep, the agent is then deleted on the host and the branch fetched
// here removed (it is merged).
func MergeRemote(w *workspace.Workspace, h *hosts.Host, name string, mo merge.Options, o LandOptions) (Landed, error) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteLandTimeout)
	defer cancel()
	clone, ok := h.Clone(w.Repo.Root)
	if !ok {
		return Landed{}, fmt.Errorf("%w: %s", hosts.ErrNoClone, h.Name)
	}
	if mo.Rebase || mo.LeaveConflicts {
		return Landed{}, fmt.Errorf("%s@%s: --rebase and --leave-conflicts need its worktree, which is on %s", name, h.Name, h.Name)
	}
	if o.Review {
		return Landed{}, fmt.Errorf("%s@%s: the review gate of an agent on a host is not built yet: merge without --review", name, h.Name)
	}
	items, err := h.FreshAgents(ctx, clone)
	if err != nil {
		return Landed{}, err
	}
	var it *inventory.Item
	for i := range items {
		if items[i].Name == name {
			it = &items[i]
		}
	}
	if it == nil {
		return Landed{}, fmt.Errorf("%w %q on %s", workspace.ErrUnknownName, name, h.Name)
	}
	if st := state.Status(it.Status); !o.Force && (st == state.Working || st == state.Starting || st.NeedsYou()) {
		return Landed{}, fmt.Errorf("%s@%s is %s: merging now would land a half-done turn; wait for it (owt wait %s@%s) or --force", name, h.Name, st, name, h.Name)
	}
	if it.Dirty > 0 {
		return Landed{}, fmt.Errorf("%s@%s has %w in %d file(s) on %s: they would not come home; have it commit them (owt send %s@%s …)",
			name, h.Name, merge.ErrUncommitted, it.Dirty, h.Name, name, h.Name)
	}
	branch, _, err := h.FetchBranch(ctx, w.Repo, name)
	if err != nil {
		return Landed{}, err
	}
	// The agent as the merge sees it: its branch here, its base, no
	// worktree here (its worktree is on the host).
	rec := &state.Record{Name: name, Repo: w.Repo.Root, Branch: branch, Base: it.Base}
	res, err := MergeContext(w).Merge(rec, mo)
	if err != nil {
		return Landed{}, err
	}
	out := Landed{ShipResult: merge.ShipResult{Result: res}}
	Note(Event{Repo: w.Repo.Root, Name: name + "@" + h.Name, Event: "merged", Detail: "into " + res.Target})
	if o.Keep {
		return out, nil
	}
	argv := []string{"delete", "--yes", "--force", "--", name} // its work is here now
	if err := h.Exec(ctx, clone, argv, io.Discard, io.Discard); err != nil {
		var ee *ssh.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%s", ee.Stderr)
		}
		out.Kept = err.Error()
		return out, fmt.Errorf("landed on %s, but %s@%s was not deleted there: %v", res.Target, name, h.Name, err)
	}
	if err := w.Repo.DeleteBranch(branch, false); err != nil {
		out.Kept = err.Error()
		return out, fmt.Errorf("landed on %s and deleted on %s, but the branch %s stays here: %w", res.Target, h.Name, branch, err)
	}
	out.Removed = true
	return out, nil
}
