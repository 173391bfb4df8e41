package lifecycle

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/notes"
	"github.com/owt-tmux/owt/internal/state"
)

// Teardown removes a worktree whose work has just landed elsewhere (owt
// merge, ship, cleanup): its session, worktree, branch and record. The
// caller checked the work landed with the branch at branchTip; Teardown
// refuses, changing nothing, if the worktree gained uncommitted work or
// commits no branch holds (a detached HEAD), or the branch moved since, so
// nothing done in the meantime is lost. An empty branchTip skips the
// branch check.
func (w *Worktrees) Teardown(name, branchTip string) error {
	r, err := w.Get(name)
	if err != nil {
		return err
	}
	if err := w.refuseMainCheckout(r); err != nil {
		return err
	}
	if r.InPlace {
		// Its checkout is the user's and stays, with any work in it: the
		// delete only ends the session and forgets the record.
		return w.Delete(name, DeleteOptions{})
	}
	if _, err := os.Stat(r.Path); err == nil {
		loss, err := worktreeWork(r)
		if err != nil {
			return err
		}
		if len(loss.DirtyFiles) > 0 || loss.Detached > 0 {
			return fmt.Errorf("kept %s: it holds work that did not land (%s); 'owt delete %s --force' removes it anyway",
				name, loss, name)
		}
		if n := len(loss.EditedCopies); n > 0 {
			it, they := "it", "it stays"
			if n > 1 {
				it, they = "them", "they stay"
			}
			return fmt.Errorf("kept %s: %s changed since owt copied %s in and git ignores %s, so nothing of %s landed; %s in %s (owt never writes your checkout's copy): take what you need, then 'owt delete %s --force'",
				name, listNames(loss.EditedCopies), it, it, it, they, r.Path, name)
		}
	}
	if branchTip != "" && w.Repo.BranchExists(r.Branch) {
		tip, err := w.Repo.ResolveCommit("refs/heads/" + r.Branch)
		if err != nil {
			return err
		}
		if tip != branchTip {
			return fmt.Errorf("kept %s: its branch %s got new commits after the merge; merge again or 'owt delete %s --force'", name, r.Branch, name)
		}
	}
	// What would be lost was checked above against what landed: the
	// branch may legitimately look unmerged (squash, --into another branch).
	return w.Delete(name, DeleteOptions{Force: true})
}

// worktreeWork is what only the worktree of r holds: its uncommitted work
// (WorkFiles, and note files holding more than owt's note, which git does
// not show), the ignored files owt copied in that changed since
// (EditedCopies), and the number of commits on its HEAD that no branch,
// tag or remote ref holds (work done on a detached HEAD).
func worktreeWork(r *state.Record) (Loss, error) {
	var l Loss
	work, err := WorkFiles(r)
	if err != nil {
		return l, fmt.Errorf("check %s for uncommitted work: %w", r.Path, err)
	}
	noteFiles, err := notes.FileWork(r)
	if err != nil {
		return l, fmt.Errorf("check %s for notes holding work: %w", r.Path, err)
	}
	for _, n := range noteFiles {
		if !slices.Contains(work, n) {
			work = append(work, n)
		}
	}
	copies, err := EditedCopies(r)
	if err != nil {
		return l, err
	}
	for _, c := range copies {
		if !slices.Contains(work, c) { // a note file can be a copy too
			l.EditedCopies = append(l.EditedCopies, c)
		}
	}
	detached, err := git.UnreferencedCommits(r.Path)
	if err != nil {
		return l, fmt.Errorf("check %s for commits no branch holds: %w", r.Path, err)
	}
	l.DirtyFiles, l.Detached = work, detached
	return l, nil
}

// listNames joins names for a sentence: "a", "a and b", "a, b and c".
func listNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
