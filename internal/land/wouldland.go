package land

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// WouldLand is the commit a ship of r would land: its branch's tip with
// its uncommitted work committed (a snapshot reachable from nothing, made
// without touching the worktree; owt's hooks left out of settings files
// as ship leaves them out), or the tip itself when there is none. A merge
// lands only when there is none, so it is what either would land: the AI
// review of owt check reviews it.
func (c *Context) WouldLand(r *state.Record) (string, error) {
	tip, err := c.Git.ResolveCommit(git.BranchRef(r.Branch))
	if err != nil {
		return "", err
	}
	if !isDir(r.Path) {
		return tip, nil
	}
	if cur, err := git.CurrentBranch(r.Path); err != nil || cur != r.Branch {
		return tip, nil
	}
	work, err := c.workFiles(r)
	if err != nil {
		return "", fmt.Errorf("check %s for uncommitted work: %w", r.Name, err)
	}
	if len(work) == 0 {
		return tip, nil
	}
	over, err := hookOverlays(r, work)
	if err != nil {
		return "", err
	}
	snap, err := git.SnapshotWith(r.Path, work, over)
	if err != nil {
		return "", fmt.Errorf("snapshot %s: %w", r.Name, err)
	}
	return snap, nil
}
