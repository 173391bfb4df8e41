package lifecycle

import (
	"errors"
	"fmt"
	"os"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hook"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// An in-place agent (owt new --in-place, owt branch) works in the user's
// own checkout: owt switches it to a new branch there and starts the
// session in it. The checkout is the user's, never owt's: nothing in it
// is stashed, reset or removed, by create, its rollback, delete, teardown
// or doctor. Only the hook settings owt merged in go back out.

// inPlaceCheckout is the checkout owt new --in-place was run in, checked:
// clean (no tracked change, no untracked file git does not ignore), on a
// branch, with no merge or rebase under way, and not a worktree of owt's.
// Nothing is changed to find out.
func (w *Worktrees) inPlaceCheckout(o CreateOptions) (string, error) {
	from := o.From
	if from == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		from = wd
	}
	top, err := git.TopLevel(from)
	if err != nil {
		return "", err
	}
	refuse := func(format string, a ...any) error {
		return fmt.Errorf("cannot work in place in %s: %s; nothing was changed", top, fmt.Sprintf(format, a...))
	}
	recs, err := w.Records()
	if err != nil {
		return "", err
	}
	for _, r := range recs {
		if r.Path == top && !r.InPlace {
			return "", refuse("it is the worktree of owt's agent %s; run owt new --in-place in your own checkout", r.Name)
		}
	}
	if op, err := git.OperationInProgress(top); err != nil {
		return "", err
	} else if op != "" {
		return "", refuse("a %s is in progress there; finish or abort it first", op)
	}
	branch, err := git.CurrentBranch(top)
	if err != nil {
		return "", err
	}
	if branch == "" {
		return "", refuse("HEAD is detached, not on a branch; 'git switch BRANCH' first")
	}
	dirty, err := git.DirtyFiles(top)
	if err != nil {
		return "", err
	}
	if len(dirty) > 0 {
		return "", refuse("it has %d uncommitted file(s): %s; commit them first (owt never stashes), or start the agent in a worktree (owt new without --in-place)",
			len(dirty), untrusted.Some(dirty, workspace.ListedMax))
	}
	return top, nil
}

// checkInPlaceStart refuses an in-place agent asked to start at a
// commit: the checkout switches to a new branch from its base.
func checkInPlaceStart(o CreateOptions) error {
	if o.InPlace && o.StartAt != "" {
		return errors.New("an in-place agent starts from its base; a start commit needs a worktree")
	}
	return nil
}

// oneInPlace refuses a second in-place agent in the checkout (none when
// checkout is "").
func oneInPlace(f *state.File, checkout string) error {
	if other := inPlaceAt(f, checkout); other != "" {
		return fmt.Errorf("%s already works in place in %s: one in-place agent per checkout ('owt delete %s' ends it)", other, checkout, other)
	}
	return nil
}

// checkInPlaceBase refuses a base whose files would write over a file git
// does not track in the checkout (an ignored .env) when it is switched
// there; start is the commit or ref the branch starts at, from its name.
func checkInPlaceBase(checkout, start, from string) error {
	hits, err := git.UntrackedCollisions(checkout, "HEAD", start)
	if err != nil {
		return err
	}
	if len(hits) > 0 {
		return fmt.Errorf("cannot work in place in %s: starting from %s would write over %d file(s) git does not track there: %s; nothing was changed",
			checkout, from, len(hits), untrusted.Some(hits, workspace.ListedMax))
	}
	return nil
}

// noFactsInPlace is why an in-place agent gets no facts of the memory,
// "" when there are none it could have had (no agent, injection off, no
// memory yet): owt writes no file of its own into the user's checkout.
func (w *Worktrees) noFactsInPlace(noAgent bool) string {
	if noAgent || w.Config.Memory.InjectTokens <= 0 || !memory.Exists(w.Repo.Root) {
		return ""
	}
	return inPlaceFactsWhy
}

// inPlaceFactsWhy is why an in-place agent gets no facts.
const inPlaceFactsWhy = "an in-place agent works in your own checkout, and owt writes no file of its own there ('owt memory search' shows the facts)"

// inPlaceAt is the name of the in-place agent of the checkout at dir, ""
// when it has none (or dir is "").
func inPlaceAt(f *state.File, dir string) string {
	if dir == "" {
		return ""
	}
	for name, r := range f.Records {
		if r.InPlace && r.Path == dir {
			return name
		}
	}
	return ""
}

// switchInPlace makes the agent's branch at start and switches the
// checkout to it; the rollback switches back to the branch it was on and
// deletes the new branch (it holds nothing yet).
func (w *Worktrees) switchInPlace(rec *state.Record, start, from string, rb *undo) error {
	prev, err := git.CurrentBranch(rec.Path)
	if err != nil {
		return err
	}
	// Another base moves the checkout's files: git would write over an
	// ignored file of the user's there (a .env) without a word.
	if err := checkInPlaceBase(rec.Path, start, from); err != nil {
		return err
	}
	if err := git.SwitchNew(rec.Path, rec.Branch, start); err != nil {
		return fmt.Errorf("%w; your checkout is as it was", err)
	}
	rb.push(func() {
		if err := git.Switch(rec.Path, prev); err != nil {
			w.Warnf("could not switch %s back to %s (%v): it stays on %s", rec.Path, prev, err, rec.Branch)
			return
		}
		_ = w.Repo.DeleteBranch(rec.Branch, true)
	})
	w.Logf("switched your checkout %s to the new branch %s (from %s); no worktree", rec.Path, rec.Branch, from)
	return nil
}

// releaseInPlace ends an in-place agent: its session and record go, owt's
// hook settings leave the checkout (the user's own come back), and
// nothing else of the checkout is touched: its files, and the branch it
// is on, stay. Nothing can be lost, so there is nothing to refuse.
func (w *Worktrees) releaseInPlace(r *state.Record, o DeleteOptions) error {
	if err := w.Store.CheckWritable(); err != nil {
		return fmt.Errorf("kept %s, nothing changed: %w", r.Name, err)
	}
	w.noteGone(r, o.landed)
	if o.Leaving != nil {
		o.Leaving()
	}
	if err := w.killSessionOf(r); err != nil {
		return err
	}
	for _, err := range hook.Of(w.Workspace).RestoreInPlace(r) {
		w.Warnf("%v", err)
	}
	if err := w.dropWithWorkers(r.Name); err != nil {
		return fmt.Errorf("ended the session of %s, but %w; 'owt doctor --fix' forgets it", r.Name, err)
	}
	if others, err := w.Records(); err == nil {
		hook.Of(w.Workspace).ReleaseExcludes(r, others)
	}
	state.RemoveMCPFiles(r.Repo, r.Name)
	return nil
}

// InPlaceStays is the line that says what an in-place agent leaves
// behind when it goes: the checkout, on its branch.
func InPlaceStays(r *state.Record) string {
	if cur, err := git.CurrentBranch(r.Path); err == nil && cur != r.Branch {
		return fmt.Sprintf("the branch %s stays; your checkout %s is as you left it", r.Branch, r.Path)
	}
	return fmt.Sprintf("the branch %s stays checked out in %s ('git switch %s' to go back)", r.Branch, r.Path, r.Base)
}
