package land

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// SyncResult is what sync did to one worktree.
type SyncResult struct {
	Name   string `json:"name"`
	Branch string `json:"branch"`
	Base   string `json:"base"`
	// Method is "merge", "rebase", "fast-forward" (a branch with no commits
	// of its own) or "" when it was already up to date.
	Method   string `json:"method,omitempty"`
	Brought  int    `json:"brought"` // base commits brought in
	UpToDate bool   `json:"up_to_date"`
}

// Sync brings the commits its base gained since the branch forked into the
// worktree r: a merge of the base by default, a rebase onto it with
// rebase. It refuses a worktree with uncommitted work, and on conflict it
// changes nothing unless leave is set, in which case the conflicts stay in
// the worktree to resolve.
func (c *Context) Sync(r *state.Record, rebase, leave bool) (SyncResult, error) {
	res := SyncResult{Name: r.Name, Branch: r.Branch, Base: r.Base}
	if !c.Git.BranchExists(r.Base) {
		return res, fmt.Errorf("%s: its base branch %q no longer exists", r.Name, r.Base)
	}
	if !isDir(r.Path) {
		return res, fmt.Errorf("%s: its worktree %s is missing", r.Name, r.Path)
	}
	work, err := c.workFiles(r)
	if err != nil {
		return res, fmt.Errorf("check %s for uncommitted work: %w", r.Name, err)
	}
	if len(work) > 0 {
		return res, fmt.Errorf("%s has %w in %d file(s): %s; commit them first (sync never stashes)",
			r.Name, ErrUncommitted, len(work), untrusted.Some(work, 5))
	}
	if op, err := git.OperationInProgress(r.Path); err != nil {
		return res, err
	} else if op != "" {
		return res, fmt.Errorf("%s: a %s is in progress in %s; finish or abort it there first", r.Name, op, r.Path)
	}
	if err := checkOnBranch(r); err != nil {
		return res, err
	}
	ahead, behind, err := c.Git.AheadBehind(git.BranchRef(r.Base), git.BranchRef(r.Branch))
	if err != nil {
		return res, fmt.Errorf("compare %s with %s: %w", r.Branch, r.Base, err)
	}
	if behind == 0 {
		res.UpToDate = true
		return res, nil
	}
	res.Brought = behind
	if ahead == 0 {
		res.Method = "fast-forward"
		return res, c.syncEmpty(r)
	}
	if rebase {
		res.Method = "rebase"
		if err := git.Rebase(r.Path, git.BranchRef(r.Base), "", leave); err != nil {
			return res, c.syncConflict(err, r, leave)
		}
		return res, nil
	}
	res.Method = "merge"
	// Predict first, so a refused sync never touches the worktree's files.
	mt, err := c.Git.MergeTree(git.BranchRef(r.Branch), git.BranchRef(r.Base))
	if err != nil {
		return res, fmt.Errorf("merge %s into %s: %w", r.Base, r.Branch, err)
	}
	if !mt.Clean() && !leave {
		return res, &ConflictError{Branch: r.Base, Target: r.Branch, Files: mt.Conflicts}
	}
	msg := fmt.Sprintf("Merge branch '%s' into %s\n", r.Base, r.Branch)
	if err := git.MergeInto(r.Path, git.BranchRef(r.Base), msg, "", leave); err != nil {
		return res, c.syncConflict(err, r, leave)
	}
	return res, nil
}

// syncEmpty moves a branch with no commits of its own to its base's tip
// (a merge and a rebase would both fast-forward it there) and records
// that it starts there now: it is still empty, not merged.
func (c *Context) syncEmpty(r *state.Record) error {
	if c.SetBaseCommit == nil {
		return fmt.Errorf("sync %s: cannot record where its branch starts", r.Name)
	}
	tip, err := c.Git.ResolveCommit("refs/heads/" + r.Base)
	if err != nil {
		return err
	}
	// Recorded first: a branch moved with its start unrecorded would look
	// merged, and owt cleanup would remove it.
	if err := c.SetBaseCommit(r.Name, tip); err != nil {
		return fmt.Errorf("sync %s: %w; nothing changed", r.Name, err)
	}
	if err := git.FastForward(r.Path, tip, "owt sync "+r.Name); err != nil {
		return fmt.Errorf("sync %s with %s: %w", r.Name, r.Base, err)
	}
	return nil
}

func (c *Context) syncConflict(err error, r *state.Record, leave bool) error {
	ce, ok := errorsAs[*git.ConflictError](err)
	if !ok {
		return fmt.Errorf("sync %s with %s: %w", r.Name, r.Base, err)
	}
	out := &ConflictError{Branch: r.Base, Target: r.Branch, Files: ce.Files}
	if leave {
		out.LeftIn = r.Path
	}
	return out
}
