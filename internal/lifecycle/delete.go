package lifecycle

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hook"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Loss is the work a delete would destroy.
type Loss struct {
	DirtyFiles []string `json:"dirty_files"`
	// EditedCopies are ignored files owt copied in that changed since
	// (EditedCopies): no commit can hold them.
	EditedCopies []string `json:"edited_copies"`
	Unmerged     int      `json:"unmerged_commits"`
	// Detached counts the commits made on a detached HEAD in the worktree
	// that no branch, tag or remote ref holds: only the worktree knows them.
	Detached int `json:"detached_commits"`
	// Tip is the branch's commit when the loss was measured. A loss
	// accepted with a tip accepts the branch as it was then: a commit
	// made since is more than was agreed to, whatever the counts say.
	Tip string `json:"tip,omitempty"`
}

// Within reports whether l loses nothing beyond accepted: its files are
// among accepted's and it has no more commits. Less is fine (the agent
// committed, or the user cleaned up, after the question was asked).
func (l Loss) Within(accepted Loss) bool {
	return subset(l.DirtyFiles, accepted.DirtyFiles) && subset(l.EditedCopies, accepted.EditedCopies) &&
		l.Unmerged <= accepted.Unmerged && l.Detached <= accepted.Detached &&
		(accepted.Tip == "" || l.Tip == accepted.Tip)
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// Empty reports whether nothing would be lost.
func (l Loss) Empty() bool {
	return len(l.DirtyFiles) == 0 && len(l.EditedCopies) == 0 && l.Unmerged == 0 && l.Detached == 0
}

func (l Loss) String() string {
	var parts []string
	if n := len(l.DirtyFiles); n > 0 {
		parts = append(parts, fmt.Sprintf("%d uncommitted file(s): %s", n, untrusted.Some(l.DirtyFiles, workspace.ListedMax)))
	}
	if n := len(l.EditedCopies); n > 0 {
		parts = append(parts, fmt.Sprintf("%d ignored file(s) owt copied in and that changed since: %s", n, untrusted.Some(l.EditedCopies, workspace.ListedMax)))
	}
	if l.Unmerged > 0 {
		parts = append(parts, fmt.Sprintf("%d commit(s) that neither its base nor any other branch holds", l.Unmerged))
	}
	if l.Detached > 0 {
		parts = append(parts, fmt.Sprintf("%d commit(s) on a detached HEAD that no branch holds", l.Detached))
	}
	return strings.Join(parts, " and ")
}

// ErrWouldLoseWork is returned by Delete when work would be lost without force.
var ErrWouldLoseWork = errors.New("would lose work")

// hint says what to do about the loss instead of forcing the delete.
func (l Loss) hint() string {
	if len(l.DirtyFiles) == 0 && l.Unmerged == 0 && l.Detached == 0 {
		return "copy them where you want to keep them, or use --force"
	}
	return "commit or merge it first, or use --force"
}

// WhatWouldBeLost inspects a worktree before deleting it: its uncommitted
// work (note files holding more than owt's note included), the ignored
// files owt copied in that changed since, its commits not in its base, and
// commits made on a detached HEAD that no ref holds.
func (w *Worktrees) WhatWouldBeLost(r *state.Record) (Loss, error) {
	var l Loss
	if r.InPlace {
		return l, nil // its delete removes nothing: the checkout and branch stay
	}
	if CreateStateOf(r) == Interrupted {
		// A checkout cut short shows its tree as changed: only files
		// someone wrote there since are work (owt doctor's rule).
		l.DirtyFiles = w.userFilesIn(r)
	} else if _, err := os.Stat(r.Path); err == nil {
		if l, err = worktreeWork(r); err != nil {
			return l, err
		}
	}
	if w.Repo.BranchExists(r.Branch) {
		// Commits another branch holds (landed with --into, or kept by a
		// branch made from this one) survive the delete.
		base := w.Repo.BaseRef(r.Base, r.BaseCommit)
		only, err := w.Repo.OnlyOn(r.Branch, base)
		if err != nil {
			return l, fmt.Errorf("compare %s with %s: %w", r.Branch, base, err)
		}
		l.Unmerged = only
		if l.Tip, err = w.Repo.ResolveCommit(git.BranchRef(r.Branch)); err != nil {
			return l, fmt.Errorf("read the tip of %s: %w", r.Branch, err)
		}
	}
	return l, nil
}

// DeleteOptions are the inputs of owt delete.
type DeleteOptions struct {
	Force      bool
	KeepBranch bool
	// Accept is what the user agreed to lose (a popup's confirmation):
	// the delete goes on, as with Force, only if what would be lost is
	// still within it; work written since the question was asked is
	// refused, not lost.
	Accept *Loss
	// Leaving, when set, runs right before the session is killed, only
	// when the delete goes on: a popup moves its client off the session.
	Leaving func()
	// CutOffOnly deletes only what a cut-off owt new left (another
	// machine's owt doctor --fix, which saw it so a moment ago): an agent
	// whose create finished since, or is finished now because its session
	// had started, is left alone.
	CutOffOnly bool
	// landed is what a teardown's merge landed, kept for mining.
	landed *gone
}

// Delete kills the session, removes the worktree, deletes the branch and
// drops the record; of an in-place agent only the session and record go
// (releaseInPlace). Without Force it refuses, changing nothing, when
// uncommitted files or commits not in the base would be lost.
func (w *Worktrees) Delete(name string, o DeleteOptions) error {
	if done, err := w.settleCutOffBeforeDelete(name, o); done || err != nil {
		return err
	}
	// A restart under way (owt restore, owt attach, doctor --fix) ends
	// first: the session it starts is then on the record read below, and
	// goes with it; a later one finds the agent gone. Else it would start
	// a session in the folder this removes, which no record owns.
	unlock, err := state.LockRestart(w.Repo.Root, name)
	if err != nil {
		return err
	}
	defer unlock()
	r, err := w.Get(name)
	if err != nil {
		return err
	}
	if o.CutOffOnly && CreateStateOf(r) != Interrupted {
		return fmt.Errorf("%s: %w: it is not what a cut-off owt new left (its create finished, or runs now)", name, ErrLeftAlone)
	}
	if r.Swarm != nil {
		return fmt.Errorf("%s is a worker of the swarm in %s, %w: 'owt swarm stop %s' stops its workers", name, r.Swarm.Host, ErrSwarmWorker, r.Swarm.Host)
	}
	if r.InPlace {
		// The user's checkout: only the session, the record and owt's
		// hook settings go (never the checkout, never its branch).
		if err := w.releaseInPlace(r, o); err != nil {
			return err
		}
		_ = status.PublishSummaryLocked(w.Tmux)
		w.refreshLostMark()
		_ = w.Tmux.RefreshStatus()
		return nil
	}
	if o.Force, err = w.refuseToLoseWork(r, o); err != nil {
		return err
	}
	return w.removeAgent(r, o)
}

// settleCutOffBeforeDelete undoes what a cut-off owt new of name left
// (a checkout cut short shows its tree as changed files), as owt doctor
// --fix does (its own Delete, so before the restart lock Delete takes),
// refused only when someone wrote there: done says the delete is over.
// A session it had started finishes it: an agent now, deleted as one.
func (w *Worktrees) settleCutOffBeforeDelete(name string, o DeleteOptions) (done bool, err error) {
	r, err := w.Get(name)
	if err != nil || o.Force || r.Swarm != nil || r.InPlace || CreateStateOf(r) != Interrupted {
		return false, nil
	}
	rec, err := w.SettleInterruptedCreate(name)
	if err != nil || rec == nil {
		return true, err
	}
	if o.CutOffOnly {
		return true, fmt.Errorf("%s: %w: its session had started, so its create was finished: it is an agent now, not removed", name, ErrLeftAlone)
	}
	return false, nil
}

// refuseToLoseWork refuses the delete of r, changing nothing, when it
// would lose work not given up (o.Force, or o.Accept still covering what
// would be lost now), when r is the main checkout or is being made. It
// says whether the removal must force git.
func (w *Worktrees) refuseToLoseWork(r *state.Record, o DeleteOptions) (force bool, err error) {
	if err := w.refuseMainCheckout(r); err != nil {
		return false, err
	}
	if CreateStateOf(r) == InProgress && !o.Force {
		return false, fmt.Errorf("%s: owt new is making it now; delete it once that is done", r.Name)
	}
	loss, err := w.WhatWouldBeLost(r)
	if err != nil && !o.Force {
		return false, err
	}
	if o.Accept != nil && !o.Force {
		if !loss.Within(*o.Accept) {
			return false, fmt.Errorf("%s %w now: %s, more than you agreed to (%s); nothing was deleted", r.Name, ErrWouldLoseWork, loss, o.Accept)
		}
		o.Force = !loss.Empty()
	}
	if !loss.Empty() && !o.Force {
		return false, fmt.Errorf("%s %w: %s (%s)", r.Name, ErrWouldLoseWork, loss, loss.hint())
	}
	return o.Force, nil
}

// removeAgent removes what r's agent has, in this order: its session,
// its worktree, its branch (unless kept), its record and its excludes,
// MCP files and bar count.
func (w *Worktrees) removeAgent(r *state.Record, o DeleteOptions) error {
	name := r.Name
	// A record owt could not drop afterwards would describe a worktree that
	// is gone: find out now, while nothing is removed yet.
	if err := w.Store.CheckWritable(); err != nil {
		return fmt.Errorf("kept %s, nothing removed: %w", name, err)
	}
	w.noteGone(r, o.landed) // its record goes: what mining needs of it stays
	if o.Leaving != nil {
		o.Leaving()
	}
	if err := w.killSessionOf(r); err != nil {
		return err
	}
	if !o.Force {
		removeMadeFiles(r) // else git worktree remove refuses an untracked file
	}
	if err := w.Repo.RemoveWorktree(r.Path, o.Force); err != nil {
		return fmt.Errorf("remove worktree %s: %w", r.Path, err)
	}
	if !o.KeepBranch && w.Repo.BranchExists(r.Branch) {
		// Unmerged commits were checked above (or --force was given), so -D.
		if err := w.Repo.DeleteBranch(r.Branch, true); err != nil {
			return fmt.Errorf("delete branch %s: %w", r.Branch, err)
		}
	} else if o.KeepBranch {
		// A kept branch is the user's now: owt doctor must never delete it.
		if err := w.Repo.UnmarkOwtBranch(r.Branch); err != nil {
			w.Logf("%v", err)
		}
	}
	if err := w.dropWithWorkers(name); err != nil {
		return fmt.Errorf("removed the session, worktree and branch of %s, but %w; 'owt doctor --fix' forgets it", name, err)
	}
	if others, err := w.Records(); err == nil {
		hook.Of(w.Workspace).ReleaseExcludes(r, others)
	}
	state.RemoveMCPFiles(r.Repo, r.Name) // Claude's --mcp-config file and the MCP secret, if any
	_ = status.PublishSummaryLocked(w.Tmux)
	w.refreshLostMark()
	_ = w.Tmux.RefreshStatus()
	return nil
}

// WorkFiles are the worktree's uncommitted files that are work: files owt
// copied in (.env …) and that still match the main checkout's copy are not,
// nor are lockfiles owt's dependency install wrote that are still as it
// left them (state.Record.SetupMade).
// A tracked settings file owt merged its hooks into is work when, without
// owt's hooks, it differs from HEAD, whether or not git status shows it
// (owt hides it with skip-worktree; see hook.Work).
func WorkFiles(r *state.Record) ([]string, error) {
	dirty, err := git.DirtyFiles(r.Path)
	if err != nil {
		return nil, err
	}
	if len(r.Copied) > 0 {
		copied := map[string]bool{}
		for _, c := range r.Copied {
			copied[c] = true
		}
		out := dirty[:0]
		for _, d := range dirty {
			if copied[d] && sameFile(filepath.Join(r.Repo, d), filepath.Join(r.Path, d)) {
				continue
			}
			out = append(out, d)
		}
		dirty = out
	}
	if len(r.SetupMade) > 0 {
		// A lockfile owt's install wrote where there was none, unchanged
		// since: the install's, not the agent's or the user's work.
		made, err := installLeft(r)
		if err != nil {
			return nil, err
		}
		out := dirty[:0]
		for _, d := range dirty {
			if !made[d] {
				out = append(out, d)
			}
		}
		dirty = out
	}
	return hook.Work(r, dirty)
}

// installLeft are the files of r.SetupMade that are still as owt's
// install left them: untracked (one the agent added to git is its own)
// and unchanged.
func installLeft(r *state.Record) (map[string]bool, error) {
	var names []string
	for _, m := range r.SetupMade {
		names = append(names, m.Path)
	}
	tracked, err := git.Tracked(r.Path, names...)
	if err != nil {
		return nil, err
	}
	left := map[string]bool{}
	for _, m := range r.SetupMade {
		if !tracked[m.Path] && m.Unchanged(r.Path) {
			left[m.Path] = true
		}
	}
	return left, nil
}

// removeMadeFiles removes the lockfiles owt's install wrote into r's
// worktree that are still untracked and as it left them (WorkFiles did not
// count them): the session is gone, so nothing writes them any more. One
// that changed stays, and git worktree remove then refuses.
func removeMadeFiles(r *state.Record) {
	if len(r.SetupMade) == 0 {
		return
	}
	left, err := installLeft(r)
	if err != nil {
		return
	}
	for path := range left {
		_ = os.Remove(filepath.Join(r.Path, filepath.FromSlash(path)))
	}
}

func sameFile(a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// killSessionOf kills the session r proves it owns: on this server, or on
// the other tmux server it was made on when that one still runs. A session
// that merely has r's name is never touched.
func (w *Worktrees) killSessionOf(r *state.Record) error {
	loc, err := workspace.ListLocator(w.Tmux)
	if err != nil {
		return err
	}
	where := loc.Locate(r)
	if where.Place == workspace.Gone {
		return nil
	}
	if err := loc.ClientFor(where).KillSession(where.SessionID); err != nil {
		return fmt.Errorf("kill session %s: %w", r.Session, err)
	}
	return nil
}

// refuseMainCheckout refuses to remove a record's worktree that is the
// repository's main checkout: only an in-place agent works there, and its
// delete removes nothing; a record saying otherwise is wrong (hand-edited,
// or written by something else), and the checkout is never owt's.
func (w *Worktrees) refuseMainCheckout(r *state.Record) error {
	if r.InPlace || filepath.Clean(r.Path) != filepath.Clean(w.Repo.Root) {
		return nil
	}
	return fmt.Errorf("%s: its path %s is your repository's main checkout, which owt never removes; nothing was changed ('owt doctor' looks into it)", r.Name, r.Path)
}
