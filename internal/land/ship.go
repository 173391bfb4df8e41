package land

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// ShipResult is what ship did: the commit it made (if any) and the merge.
type ShipResult struct {
	Result
	Committed string   `json:"committed,omitempty"`
	Files     []string `json:"committed_files,omitempty"`
}

// Ship commits everything the worktree r holds (message from its task
// unless message is set) and merges it into its base. Every check the
// merge makes is made first, against the commit ship would make, so a
// refusal — a conflict, a dirty target checkout, an empty result —
// changes nothing, not even the worktree's branch. A tracked settings
// file holding owt's hooks is committed without them (see hookOverlays).
func (c *Context) Ship(r *state.Record, message string) (ShipResult, error) {
	out := ShipResult{Result: Result{Name: r.Name, Branch: r.Branch, Target: r.Base}}
	target := r.Base
	if err := c.checkShippable(r, target); err != nil {
		return out, err
	}
	work, err := c.workFiles(r)
	if err != nil {
		return out, fmt.Errorf("check %s for uncommitted work: %w", r.Name, err)
	}
	old, err := c.Git.ResolveCommit("refs/heads/" + target)
	if err != nil {
		return out, err
	}
	tip, err := c.Git.ResolveCommit("refs/heads/" + r.Branch)
	if err != nil {
		return out, err
	}
	if len(work) == 0 && c.Git.IsAncestor(tip, old) {
		return out, fmt.Errorf("%w: %s has no changes and no commits that %s lacks", ErrEmpty, r.Name, target)
	}

	snap, over, err := c.predictShip(r, target, old, work)
	if err != nil {
		return out, err
	}

	if c.Gate != nil {
		if err := c.Gate(r, target, snap); err != nil {
			return out, err
		}
		// The gate (a review) takes a while: what is committed must
		// still be what it passed.
		if work, over, err = c.unchangedSince(r, tree0(c, snap)); err != nil {
			return out, err
		}
	}
	// The agent may have started a turn since the caller looked: the
	// last look comes right before the commit.
	if c.BeforeCommit != nil {
		if err := c.BeforeCommit(r); err != nil {
			return out, err
		}
	}
	if len(work) > 0 {
		msg := shipMessage(r, message)
		if out.Committed, err = git.CommitPathsWith(r.Path, work, over, msg); err != nil {
			return out, fmt.Errorf("commit the changes of %s: %w", r.Name, err)
		}
		out.Files = work
	}
	// The gate passed what is committed now: the merge does not ask again.
	inner := *c
	inner.Gate = nil
	res, err := inner.Merge(r, Options{})
	out.Result = res
	if err != nil && out.Committed != "" {
		return out, fmt.Errorf("committed %d file(s) in %s as %.12s, but the merge failed: %w", len(work), r.Name, out.Committed, err)
	}
	return out, err
}

// predictShip makes the commit ship would make of work (settings files
// holding owt's hooks without them: over) as a snapshot, not on any
// branch, and refuses what landing it on target (at old) would meet: a
// dirty or busy target checkout, files in the way, a conflict, an empty
// result.
func (c *Context) predictShip(r *state.Record, target, old string, work []string) (snap string, over []git.Overlay, err error) {
	// Settings files holding owt's hooks are committed without them.
	over, err = hookOverlays(r, work)
	if err != nil {
		return "", nil, err
	}
	// Predict the landing with the commit ship would make.
	snap, err = git.SnapshotWith(r.Path, work, over)
	if err != nil {
		return "", nil, fmt.Errorf("ship %s: %w", r.Name, err)
	}
	// A check that fails because another merge is landing on target
	// right now (its files appear in the checkout) says so.
	checkout, err := c.checkTargetCheckout(target)
	if err != nil {
		return "", nil, c.movedOr(target, old, err)
	}
	if err := c.checkNoCollisions(target, checkout, old, snap); err != nil {
		return "", nil, c.movedOr(target, old, err)
	}
	tree, err := c.Git.TreeOf(snap)
	if err != nil {
		return "", nil, err
	}
	if !c.Git.IsAncestor(old, snap) {
		mt, err := c.Git.MergeTree(old, snap)
		if err != nil {
			return "", nil, fmt.Errorf("merge %s into %s: %w", r.Branch, target, err)
		}
		if !mt.Clean() {
			return "", nil, &ConflictError{Branch: r.Branch, Target: target, Files: mt.Conflicts}
		}
		tree = mt.Tree
	}
	if oldTree, _ := c.Git.TreeOf(old); tree == oldTree {
		return "", nil, fmt.Errorf("%w: the result would be empty, the changes of %s are already in %s", ErrEmpty, r.Name, target)
	}
	return snap, over, nil
}

// checkShippable refuses what ship cannot do at all.
func (c *Context) checkShippable(r *state.Record, target string) error {
	if !c.Git.BranchExists(target) {
		return fmt.Errorf("%s's base branch %q no longer exists; commit there and use 'owt merge %s --into BRANCH'", r.Name, target, r.Name)
	}
	if !c.Git.BranchExists(r.Branch) {
		return fmt.Errorf("%s: its branch %s no longer exists", r.Name, r.Branch)
	}
	if !isDir(r.Path) {
		return fmt.Errorf("%s: its worktree %s is missing; nothing to commit ('owt merge %s' merges the branch)", r.Name, r.Path, r.Name)
	}
	if op, err := git.OperationInProgress(r.Path); err != nil {
		return err
	} else if op != "" {
		return fmt.Errorf("%s: a %s is in progress in %s; finish or abort it there first", r.Name, op, r.Path)
	}
	return checkOnBranch(r)
}

// shipMessage is -m, else the task, else a line naming the worktree.
func shipMessage(r *state.Record, message string) string {
	if m := strings.TrimSpace(message); m != "" {
		return m + "\n"
	}
	if t := strings.TrimSpace(r.Task); t != "" {
		return t + "\n"
	}
	return fmt.Sprintf("Work from %s\n", r.Name)
}

// tree0 is the tree of commit, "" when it cannot be read.
func tree0(c *Context, commit string) string {
	t, _ := c.Git.TreeOf(commit)
	return t
}

// unchangedSince returns r's work files and hook overlays as they are now,
// or an error when committing them would not give tree (what the gate
// passed): the worktree changed meanwhile, and nothing was shipped.
func (c *Context) unchangedSince(r *state.Record, tree string) ([]string, []git.Overlay, error) {
	work, err := c.workFiles(r)
	if err != nil {
		return nil, nil, fmt.Errorf("check %s for uncommitted work: %w", r.Name, err)
	}
	over, err := hookOverlays(r, work)
	if err != nil {
		return nil, nil, err
	}
	snap, err := git.SnapshotWith(r.Path, work, over)
	if err != nil {
		return nil, nil, fmt.Errorf("ship %s: %w", r.Name, err)
	}
	if now := tree0(c, snap); tree == "" || now != tree {
		return nil, nil, fmt.Errorf("%s changed while it was reviewed; nothing was shipped: ship again to review what it holds now", r.Name)
	}
	return work, over, nil
}

// Commit commits everything the worktree r holds as Ship would (message
// from its task unless message is set; owt's hooks left out of settings
// files) and lands nothing: the first half of shipping an agent whose
// worktree is on another machine, run there, its branch then brought
// home and merged. BeforeCommit is asked right before the commit. A
// worktree with nothing uncommitted gets an empty result and no commit.
func (c *Context) Commit(r *state.Record, message string) (ShipResult, error) {
	out := ShipResult{Result: Result{Name: r.Name, Branch: r.Branch, Target: r.Base}}
	if !c.Git.BranchExists(r.Branch) {
		return out, fmt.Errorf("%s: its branch %s no longer exists", r.Name, r.Branch)
	}
	if !isDir(r.Path) {
		return out, fmt.Errorf("%s: its worktree %s is missing; nothing to commit", r.Name, r.Path)
	}
	if op, err := git.OperationInProgress(r.Path); err != nil {
		return out, err
	} else if op != "" {
		return out, fmt.Errorf("%s: a %s is in progress in %s; finish or abort it there first", r.Name, op, r.Path)
	}
	if err := checkOnBranch(r); err != nil {
		return out, err
	}
	work, err := c.workFiles(r)
	if err != nil {
		return out, fmt.Errorf("check %s for uncommitted work: %w", r.Name, err)
	}
	if len(work) == 0 {
		return out, nil
	}
	over, err := hookOverlays(r, work)
	if err != nil {
		return out, err
	}
	if c.BeforeCommit != nil {
		if err := c.BeforeCommit(r); err != nil {
			return out, err
		}
	}
	if out.Committed, err = git.CommitPathsWith(r.Path, work, over, shipMessage(r, message)); err != nil {
		return out, fmt.Errorf("commit the changes of %s: %w", r.Name, err)
	}
	out.Files = work
	return out, nil
}
