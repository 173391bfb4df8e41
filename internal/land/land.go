package land

import (
	"errors"
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Options are the inputs of owt merge.
type Options struct {
	Into   string // target branch; the recorded base when empty
	Rebase bool   // rebase the branch onto the target, then fast-forward
	Squash bool   // one commit on the target holding all the branch's changes
	// Strategy settles conflicting hunks: "ours" keeps the target's side,
	// "theirs" the branch's; "" leaves conflicts as conflicts.
	Strategy string
	// LeaveConflicts merges the target into the branch inside the agent's
	// worktree when there are conflicts, leaving them there to resolve.
	LeaveConflicts bool
	// Message overrides the merge or squash commit message.
	Message string
	// BranchName names the branch in the commit messages when the
	// record's Branch is a stand-in for it (a remote agent's branch,
	// fetched into owt's own owt/remote/HOST/BRANCH); "" is Branch.
	BranchName string
}

// branchName is how the commit messages name r's branch.
func (o Options) branchName(r *state.Record) string {
	if o.BranchName != "" {
		return o.BranchName
	}
	return r.Branch
}

// Validate reports combinations that make no sense, as usage errors.
func (o Options) Validate() error {
	if o.Rebase && o.Squash {
		return errors.New("--rebase and --squash cannot be used together")
	}
	if o.Strategy != "" && o.Strategy != "ours" && o.Strategy != "theirs" {
		return fmt.Errorf("--strategy %q: use ours (keep the target's side) or theirs (keep the branch's side)", o.Strategy)
	}
	return nil
}

// Result is what a merge did.
type Result struct {
	Name   string `json:"name"`
	Branch string `json:"branch"`
	Target string `json:"target"`
	// Method is "fast-forward", "merge", "squash" or "rebase".
	Method string `json:"method"`
	From   string `json:"from"`   // the target's commit before
	Commit string `json:"commit"` // the target's commit after
	// BranchTip is the branch commit that landed (after --rebase, the
	// rebased one); teardown checks the branch still points there.
	BranchTip string `json:"branch_tip"`
	// Checkout is the checkout that was fast-forwarded, "" when only the
	// branch ref moved because the target is checked out nowhere.
	Checkout string `json:"checkout,omitempty"`
}

// Merge lands the branch of worktree r on its target. It refuses, changing
// nothing, while the worktree has uncommitted work, when the branch has
// nothing new, when the target's checkout is not clean, and on conflict.
func (c *Context) Merge(r *state.Record, o Options) (Result, error) {
	res := Result{Name: r.Name, Branch: r.Branch, Target: o.Into}
	if err := o.Validate(); err != nil {
		return res, err
	}
	if res.Target == "" {
		res.Target = r.Base
	}
	target := res.Target
	if err := c.checkMergeable(r, o, target); err != nil {
		return res, err
	}
	old, err := c.Git.ResolveCommit("refs/heads/" + target)
	if err != nil {
		return res, err
	}
	tip, err := c.Git.ResolveCommit("refs/heads/" + r.Branch)
	if err != nil {
		return res, err
	}
	res.From, res.BranchTip = old, tip
	if c.Git.IsAncestor(tip, old) {
		return res, fmt.Errorf("%w: %s has no commits that %s lacks", ErrNothingToMerge, r.Branch, target)
	}
	// A check that fails because another merge is landing on target
	// right now (its files appear in the checkout) says so.
	checkout, err := c.checkTargetCheckout(target)
	if err != nil {
		return res, c.movedOr(target, old, err)
	}
	if err := c.checkNoCollisions(target, checkout, old, tip); err != nil {
		return res, c.movedOr(target, old, err)
	}
	if c.Gate != nil {
		if err := c.Gate(r, target, tip); err != nil {
			return res, err
		}
	}

	if err := c.landingCommit(r, o, target, old, tip, &res); err != nil {
		return res, err
	}
	res.Checkout = checkout
	return res, c.moveTarget(target, checkout, old, res.Commit, "owt merge "+r.Name+" ("+res.Method+")")
}

// landingCommit makes the commit that lands the branch of r on target
// (at old; the branch at tip) by o's method, into res (Method, Commit,
// BranchTip after a rebase): the branch's tip itself (a fast-forward, or
// after rebasing it in the worktree), a squash, or a merge commit. A
// conflict is refused, or with LeaveConflicts left in the worktree.
func (c *Context) landingCommit(r *state.Record, o Options, target, old, tip string, res *Result) error {
	switch {
	case o.Rebase:
		res.Method = "rebase"
		if !c.Git.IsAncestor(old, tip) {
			// Predict first: a rebase that stops must be aborted, which
			// rewrites the worktree's index; a predicted conflict is
			// refused before anything is touched.
			if !o.LeaveConflicts && o.Strategy == "" {
				if mt, err := c.Git.MergeTree(old, tip); err != nil {
					return fmt.Errorf("merge %s into %s: %w", r.Branch, target, err)
				} else if !mt.Clean() {
					return &ConflictError{Branch: r.Branch, Target: target, Files: mt.Conflicts}
				}
			}
			if err := git.Rebase(r.Path, target, o.Strategy, o.LeaveConflicts); err != nil {
				return c.conflictOr(err, r, target, o.LeaveConflicts)
			}
			var err error
			if tip, err = c.Git.ResolveCommit("refs/heads/" + r.Branch); err != nil {
				return err
			}
			if !c.Git.IsAncestor(old, tip) {
				return fmt.Errorf("rebasing %s onto %s in %s did not leave %s on top of %s; %s was not changed",
					r.Branch, target, r.Path, r.Branch, target, target)
			}
		}
		res.BranchTip, res.Commit = tip, tip
	case o.Squash:
		res.Method = "squash"
		tree, err := c.mergedTree(r, o, target, old, tip)
		if err != nil {
			return err
		}
		if oldTree, _ := c.Git.TreeOf(old); tree == oldTree {
			return fmt.Errorf("%w: the changes of %s are already in %s", ErrNothingToMerge, r.Branch, target)
		}
		msg, err := c.squashMessage(r, o, target, old, tip)
		if err != nil {
			return err
		}
		if res.Commit, err = c.Git.CommitTree(tree, []string{old}, msg); err != nil {
			return err
		}
	case c.Git.IsAncestor(old, tip):
		res.Method, res.Commit = "fast-forward", tip
	default:
		res.Method = "merge"
		tree, err := c.mergedTree(r, o, target, old, tip)
		if err != nil {
			return err
		}
		msg := o.Message
		if msg == "" {
			msg = fmt.Sprintf("Merge branch '%s' into %s\n", o.branchName(r), target)
		}
		if res.Commit, err = c.Git.CommitTree(tree, []string{old, tip}, msg); err != nil {
			return err
		}
	}
	return nil
}

// checkMergeable refuses what no merge method can do.
func (c *Context) checkMergeable(r *state.Record, o Options, target string) error {
	if !c.Git.BranchExists(target) {
		if o.Into == "" {
			if _, err := c.Git.ResolveCommit(target); err == nil {
				return fmt.Errorf("%s's base %q is not a branch; merge with --into BRANCH", r.Name, target)
			}
			return fmt.Errorf("%s's base branch %q no longer exists; merge with --into BRANCH", r.Name, target)
		}
		return fmt.Errorf("no branch %q to merge into", target)
	}
	if target == r.Branch {
		return fmt.Errorf("cannot merge %s into itself", r.Branch)
	}
	if !c.Git.BranchExists(r.Branch) {
		return fmt.Errorf("%s: its branch %s no longer exists", r.Name, r.Branch)
	}
	if !isDir(r.Path) {
		if o.Rebase || o.LeaveConflicts {
			return fmt.Errorf("%s: its worktree %s is missing; --rebase and --leave-conflicts need it", r.Name, r.Path)
		}
		return nil
	}
	if r.InPlace {
		// The user may have switched their checkout back since: then what
		// is in it is theirs, and the branch merges as a branch.
		if cur, err := git.CurrentBranch(r.Path); err == nil && cur != r.Branch {
			if o.Rebase || o.LeaveConflicts {
				return fmt.Errorf("%s works in place and your checkout %s is not on %s now; --rebase and --leave-conflicts need it there ('git switch %s')", r.Name, r.Path, r.Branch, r.Branch)
			}
			return nil
		}
	}
	work, err := c.workFiles(r)
	if err != nil {
		return fmt.Errorf("check %s for uncommitted work: %w", r.Name, err)
	}
	if len(work) > 0 {
		return fmt.Errorf("%s has %w in %d file(s): %s; commit them, or run 'owt ship %s' to commit and merge",
			r.Name, ErrUncommitted, len(work), untrusted.Some(work, 5), r.Name)
	}
	if op, err := git.OperationInProgress(r.Path); err != nil {
		return err
	} else if op != "" {
		return fmt.Errorf("%s: a %s is in progress in %s; finish or abort it there first", r.Name, op, r.Path)
	}
	return checkOnBranch(r)
}

// mergedTree is the tree of target and the branch merged, computed in the
// object database only. On conflict nothing has changed; with
// LeaveConflicts the target is then merged into the branch in the agent's
// worktree so the conflicts can be resolved there.
func (c *Context) mergedTree(r *state.Record, o Options, target, old, tip string) (string, error) {
	mt, err := c.Git.MergeTree(old, tip)
	if err != nil {
		return "", fmt.Errorf("merge %s into %s: %w", r.Branch, target, err)
	}
	if mt.Clean() {
		return mt.Tree, nil
	}
	files := mt.Conflicts
	if o.Strategy != "" {
		tree, unresolved, err := c.Git.Favor(mt, o.Strategy)
		if err != nil {
			return "", fmt.Errorf("merge %s into %s: %w", r.Branch, target, err)
		}
		if len(unresolved) == 0 {
			return tree, nil
		}
		files = unresolved
	}
	if !o.LeaveConflicts {
		return "", &ConflictError{Branch: r.Branch, Target: target, Files: files}
	}
	// In the worktree the branch is "ours": swap the favoured side.
	favor := map[string]string{"ours": "theirs", "theirs": "ours"}[o.Strategy]
	msg := fmt.Sprintf("Merge branch '%s' into %s\n", target, r.Branch)
	err = git.MergeInto(r.Path, target, msg, favor, true)
	if err == nil {
		return "", fmt.Errorf("merging %s into %s in %s went through after all; run the merge again", target, r.Branch, r.Path)
	}
	return "", c.conflictOr(err, r, target, true)
}

// conflictOr turns a git conflict into a ConflictError that says where the
// conflicts were left, if anywhere.
func (c *Context) conflictOr(err error, r *state.Record, target string, left bool) error {
	var ce *git.ConflictError
	if !errors.As(err, &ce) {
		return fmt.Errorf("merge %s into %s: %w", r.Branch, target, err)
	}
	out := &ConflictError{Branch: r.Branch, Target: target, Files: ce.Files}
	if left {
		out.LeftIn = r.Path
	}
	return out
}

func (c *Context) squashMessage(r *state.Record, o Options, target, old, tip string) (string, error) {
	if o.Message != "" {
		return o.Message, nil
	}
	subject := firstLine(r.Task)
	if subject == "" {
		subject = fmt.Sprintf("Squashed branch '%s'", o.branchName(r))
	}
	mb, err := c.Git.MergeBase(old, tip)
	if err != nil {
		return "", err
	}
	subjects, err := c.Git.Subjects(mb, tip)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(subject + "\n\n")
	fmt.Fprintf(&b, "Squashed %d commit(s) of %s into %s:\n", len(subjects), o.branchName(r), target)
	for _, s := range subjects {
		b.WriteString("* " + s + "\n")
	}
	return b.String(), nil
}

// moveTarget puts commit on target: a fast-forward in the checkout that
// has target (known clean), or, when none has it, an atomic update of the
// ref from old. commit must descend from old: a target is never moved in
// a way that drops one of its commits. Checked again just before, so a checkout made meanwhile is
// never left with a branch moved under its feet.
func (c *Context) moveTarget(target, checkout, old, commit, reason string) error {
	now, found, err := c.Git.CheckedOutAt(target)
	if err != nil {
		return err
	}
	if found != (checkout != "") || now != checkout {
		return fmt.Errorf("%s was checked out or switched while merging; nothing was changed, try again", target)
	}
	if err := c.stillAt(target, old); err != nil {
		return err
	}
	// Only ever forward: the target keeps every commit it had.
	if !c.Git.IsAncestor(old, commit) {
		return fmt.Errorf("refusing to move %s from %.12s to %.12s, which does not contain it: commits of %s would be lost; nothing was changed", target, old, commit, target)
	}
	if checkout != "" {
		if err := git.FastForward(checkout, commit, reason); err != nil {
			return c.movedOr(target, old, fmt.Errorf("update %s in %s: %w", target, checkout, err))
		}
		return nil
	}
	if err := c.Git.UpdateBranch(target, commit, old, reason); err != nil {
		return c.movedOr(target, old, err)
	}
	return nil
}

// movedOr is the error of a failed move of target: ErrTargetMoved when
// another merge moved it in the last instant, else err.
func (c *Context) movedOr(target, old string, err error) error {
	if moved := c.stillAt(target, old); moved != nil {
		return moved
	}
	return err
}

// stillAt says, as ErrTargetMoved, that target is no longer at old: a
// concurrent merge (or the user) moved it after this merge read it.
func (c *Context) stillAt(target, old string) error {
	now, err := c.Git.ResolveCommit("refs/heads/" + target)
	if err != nil || now == old {
		return nil
	}
	return fmt.Errorf("%s %w (another merge landed first); %s was not changed: merge again", target, ErrTargetMoved, target)
}
