package lifecycle

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/notes"
	"github.com/owt-tmux/owt/internal/state"
)

// Landing is what landed before a teardown: the branch at BranchTip,
// into the target whose commit was From before and Commit after.
type Landing struct {
	// BranchTip is the branch commit that landed; "" skips the check
	// that the branch did not move since.
	BranchTip string
	// From is the target's commit before the landing: the merged commits
	// are From..BranchTip. "" (a branch found landed by owt cleanup): the
	// commit the branch started at.
	From string
	// Into and Commit are the target branch and its commit after.
	Into, Commit string
}

// maxMerged bounds the merged commits kept for mining from one landing.
const maxMerged = 500

// merged is what l brought into the target from r's branch, for mining:
// the commits (with their messages) From..BranchTip, and the commit they
// were squashed into when no branch holds them any more.
func (w *Worktrees) merged(r *state.Record, l Landing) *gone {
	tip, from := l.BranchTip, l.From
	if tip == "" && w.Repo.BranchExists(r.Branch) {
		tip, _ = w.Repo.ResolveCommit(git.BranchRef(r.Branch))
	}
	if from == "" {
		from = r.BaseCommit
	}
	g := &gone{into: l.Into}
	if g.into == "" {
		g.into = r.Base
	}
	if tip == "" || from == "" {
		return g
	}
	commits, err := w.Repo.MessagesBetween(from, tip, maxMerged)
	if err != nil {
		w.Warnf("%v; owt memory mine will not see the commits %s landed", err, r.Name)
		return g
	}
	for _, c := range commits {
		g.commits = append(g.commits, memory.Commit{Hash: c.Hash, Subject: c.Subject, Body: c.Body})
	}
	if l.Commit != "" && !w.Repo.IsAncestor(tip, l.Commit) {
		g.squashed = l.Commit
	}
	return g
}

// gone is what a teardown landed, kept for mining by noteGone.
type gone struct {
	commits  []memory.Commit
	into     string
	squashed string
}

// noteGone keeps what mining and consolidation need of r, whose record
// is about to go: its done summary and whether its work landed — by a
// teardown (l, with the merged commits), or, deleted, when its base
// holds its branch. Not being able to keep it is said, and stops
// nothing.
func (w *Worktrees) noteGone(r *state.Record, l *gone) {
	g := memory.Gone{At: w.Now(), Agent: r.Name, Branch: r.Branch}
	if r.Done != nil && !r.Done.Summary.Empty() {
		g.Summary, g.DoneAt = r.Done.Summary.Block(), r.Done.At
	}
	switch {
	case l != nil:
		g.Landed, g.Merged, g.Into, g.Squashed = true, l.commits, l.into, l.squashed
	case !r.InPlace && w.Repo.BranchExists(r.Branch):
		g.Landed = w.Repo.IsAncestor(git.BranchRef(r.Branch), w.Repo.BaseRef(r.Base, r.BaseCommit))
	}
	if g.Summary == "" && !g.Landed {
		return
	}
	if err := memory.NoteGone(w.Repo.Root, g); err != nil {
		w.Warnf("%v; owt memory mine will not see it", err)
	}
}

// Teardown removes a worktree whose work has just landed elsewhere (owt
// merge, ship, cleanup): its session, worktree, branch and record. The
// caller checked the work landed with the branch at l.BranchTip; Teardown
// refuses, changing nothing, if the worktree gained uncommitted work or
// commits no branch holds (a detached HEAD), or the branch moved since, so
// nothing done in the meantime is lost. What landed is kept for mining
// (the memory), with the agent's done summary, before the record goes.
func (w *Worktrees) Teardown(name string, l Landing) error {
	branchTip := l.BranchTip
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
		return w.Delete(name, DeleteOptions{landed: w.merged(r, l)})
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
	return w.Delete(name, DeleteOptions{Force: true, landed: w.merged(r, l)})
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
