// Merge, ship and sync. Their rules are the ones a user must be able to
// trust with the last step: the user's own checkout is only touched when
// it is clean and on the target (and then only by a fast-forward to a
// merge computed beforehand), a target checked out nowhere is moved with
// an atomic compare-and-swap of its ref, a conflict changes nothing
// anywhere, and nothing is ever stashed, reset or cleaned. All git work
// goes through internal/git; the teardown that follows a merge belongs to
// workspace and is composed by the CLI.

package land

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Context is one repository as merge sees it.
type Context struct {
	Git git.Repo
	// Records returns every worktree record of the repository (for the
	// overlaps and conflicts with the other worktrees, and the queue).
	Records func() ([]*state.Record, error)
	// WorkFiles lists a worktree's uncommitted work. The CLI passes
	// lifecycle.WorkFiles, which does not count files owt copied in and
	// that are unchanged; nil means every dirty file.
	WorkFiles func(*state.Record) ([]string, error)
	// EditedCopies lists the ignored files owt copied into a worktree that
	// changed since (lifecycle.EditedCopies): no commit takes them, so a
	// merge or ship leaves them, and the worktree, behind. nil means none.
	EditedCopies func(*state.Record) ([]string, error)
	// SetBaseCommit records the commit a worktree's branch now starts
	// from: a sync that moves a branch with no commits of its own to its
	// base's tip moves its start with it, so it stays empty, not merged.
	// nil: sync refuses to move such a branch.
	SetBaseCommit func(name, commit string) error
	// BeforeCommit, when set, is asked right before ship commits a
	// worktree's files; its error stops the ship with nothing changed
	// (an agent that started a turn meanwhile).
	BeforeCommit func(*state.Record) error
	// Gate, when set, is asked about the commit that would land (tip:
	// the branch's tip, or for ship the commit it would make) on target,
	// once every other check passed and before anything is changed; its
	// error stops the merge or ship with nothing changed (the AI review).
	Gate func(r *state.Record, target, tip string) error
}

// ErrUncommitted is returned (wrapped) when a worktree holds uncommitted
// work that an operation would leave behind or trip over.
var ErrUncommitted = errors.New("uncommitted changes")

// ErrNothingToMerge is returned (wrapped) when a branch has no commit its
// target lacks.
var ErrNothingToMerge = errors.New("nothing to merge")

// ErrTargetMoved is returned (wrapped) when the target branch moved
// between reading it and moving it (another merge landed first): nothing
// was changed, and merging again computes the merge on its new tip.
var ErrTargetMoved = errors.New("moved meanwhile")

// ErrEmpty is returned (wrapped) when shipping would change nothing.
var ErrEmpty = errors.New("nothing to ship")

// TargetDirtyError refuses a merge into a branch that is checked out in a
// worktree with changes git would have to touch: owt never stashes, resets
// or cleans anyone's checkout to make room.
type TargetDirtyError struct {
	Target   string
	Checkout string
	Files    []string // changed tracked files, or untracked files in the way
	Reason   string   // "uncommitted changes", "untracked files in the way", "a merge in progress"…
}

func (e *TargetDirtyError) Error() string {
	return e.Where() + "; owt leaves that checkout alone: commit or move those changes yourself, then merge again"
}

// Where says what is in the way: the target's checkout, why, which files.
func (e *TargetDirtyError) Where() string {
	s := fmt.Sprintf("%s is checked out in %s with %s", e.Target, e.Checkout, e.Reason)
	if len(e.Files) > 0 {
		s += ": " + untrusted.Some(e.Files, 8)
	}
	return s
}

// ConflictError is a merge that would conflict. Nothing was changed,
// unless LeftIn names the worktree where the conflicts were left on
// purpose (--leave-conflicts).
type ConflictError struct {
	Branch string
	Target string
	Files  []string
	LeftIn string
	// Advice, when set, is what to do instead of --leave-conflicts (an
	// agent on a host, whose worktree is not here).
	Advice string
}

func (e *ConflictError) Error() string {
	s := fmt.Sprintf("%s conflicts with %s in %s", e.Branch, e.Target, untrusted.Some(e.Files, 8))
	if e.LeftIn != "" {
		return s + "; the conflicts are left in " + e.LeftIn + ": resolve them and commit there"
	}
	if e.Advice != "" {
		return s + "; " + e.Advice
	}
	return s + "; nothing was changed (--leave-conflicts leaves them in the worktree to resolve)"
}

// Is makes errors.Is(err, git.ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == git.ErrConflict }

// workFiles lists a worktree's uncommitted work; none when its folder is gone.
func (c *Context) workFiles(r *state.Record) ([]string, error) {
	if !isDir(r.Path) {
		return nil, nil
	}
	if c.WorkFiles != nil {
		return c.WorkFiles(r)
	}
	return git.DirtyFiles(r.Path)
}

// editedCopies lists a worktree's edited ignored copies; none when its
// folder is gone.
func (c *Context) editedCopies(r *state.Record) ([]string, error) {
	if !isDir(r.Path) || c.EditedCopies == nil {
		return nil, nil
	}
	return c.EditedCopies(r)
}

func (c *Context) records() ([]*state.Record, error) {
	if c.Records == nil {
		return nil, nil
	}
	return c.Records()
}

// baseRef is what a record's work is measured against (git.Repo.BaseRef).
func (c *Context) baseRef(r *state.Record) string {
	return c.Git.BaseRef(r.Base, r.BaseCommit)
}

// checkOnBranch refuses while the worktree's HEAD is not on its branch (a
// detached HEAD, another branch checked out): a merge, rebase or commit
// made there would not be on the branch that lands, and the branch that
// lands would not be what the worktree holds.
func checkOnBranch(r *state.Record) error {
	cur, err := git.CurrentBranch(r.Path)
	if err != nil {
		return fmt.Errorf("%s: %w", r.Name, err)
	}
	if cur != r.Branch {
		return fmt.Errorf("HEAD in %s is not on %s; check it out first", r.Path, r.Branch)
	}
	return nil
}

// checkTargetCheckout finds where target is checked out and refuses when
// an agent works there (TargetBusyError) or that checkout is not clean
// (TargetDirtyError). It returns "" when target is checked out nowhere.
func (c *Context) checkTargetCheckout(target string) (string, error) {
	path, found, err := c.Git.CheckedOutAt(target)
	if err != nil || !found {
		return "", err
	}
	if err := c.checkTargetBusy(target, path); err != nil {
		return "", err
	}
	if op, err := git.OperationInProgress(path); err != nil {
		return "", err
	} else if op != "" {
		return "", &TargetDirtyError{Target: target, Checkout: path, Reason: "a " + op + " in progress"}
	}
	files, err := git.TrackedChanges(path)
	if err != nil {
		return "", err
	}
	if len(files) > 0 {
		return "", &TargetDirtyError{Target: target, Checkout: path, Files: files, Reason: "uncommitted changes"}
	}
	if cur, err := git.CurrentBranch(path); err != nil {
		return "", err
	} else if cur != target {
		return "", &TargetDirtyError{Target: target, Checkout: path, Reason: "a rebase of it in progress"}
	}
	return path, nil
}

// checkNoCollisions refuses when landing tip into the checkout would write
// over files git does not track there (an ignored .env, a log).
func (c *Context) checkNoCollisions(target, checkout, old, tip string) error {
	if checkout == "" {
		return nil
	}
	mb, err := c.Git.MergeBase(old, tip)
	if err != nil {
		return err
	}
	hits, err := git.UntrackedCollisions(checkout, mb, tip)
	if err != nil {
		return err
	}
	if len(hits) > 0 {
		return &TargetDirtyError{Target: target, Checkout: checkout, Files: hits, Reason: "untracked or ignored files where the merge adds files"}
	}
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// firstLine is the first non-empty line of s, trimmed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
