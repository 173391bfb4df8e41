package popups

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// MergeReport says what merging rec would do, and whether owt can do it
// from here. It is a variable so the merge work can put its own safety
// report (internal/merge) in its place; until then it only describes.
var MergeReport = describeMerge

// Merge is the Alt+m popup: for the worktree of the current session (a
// picker elsewhere) it shows what a merge would do. owt cannot merge yet,
// so it says so and changes nothing.
func Merge(tm *tmux.Client, s Screen) error {
	return finish(s, merge(tm, s))
}

func merge(tm *tmux.Client, s Screen) error {
	t, _, err := chooseTarget(tm, "merge")
	if err != nil {
		return err
	}
	report, available, err := MergeReport(t.w, t.rec)
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Out, report)
	if !available {
		fmt.Fprintln(s.Out, "\nMerging is not available yet in this owt: nothing was merged or changed.")
		s.waitKey("Press any key to close.")
		return nil
	}
	return fmt.Errorf("merge report says merge is available, but this popup cannot merge yet")
}

// describeMerge is the report before owt can merge: the branch and its
// base, the commits and lines that would land, what the base has that the
// branch lacks, and uncommitted work that a merge would not take.
func describeMerge(w *workspace.Workspace, r *state.Record) (string, bool, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Merge %s: %s → %s (in %s)\n\n", r.Name, r.Branch, r.Base, r.Repo)
	base := r.Base
	if !w.Repo.BranchExists(base) && r.BaseCommit != "" {
		base = r.BaseCommit
	}
	ahead, behind, err := w.Repo.AheadBehind(base, r.Branch)
	if err != nil {
		return "", false, fmt.Errorf("compare %s with %s: %w", r.Branch, base, err)
	}
	switch ahead {
	case 0:
		fmt.Fprintf(&b, "  %s has no commits that %s lacks: there is nothing to merge.\n", r.Branch, r.Base)
	default:
		fmt.Fprintf(&b, "  %d commit(s) from %s would be merged into %s.\n", ahead, r.Branch, r.Base)
	}
	if d, err := git.Diff(r.Path, base); err == nil {
		fmt.Fprintf(&b, "  Changes: %d file(s), +%d -%d.\n", d.Files, d.Insertions, d.Deletions)
	}
	if behind > 0 {
		fmt.Fprintf(&b, "  %s has moved on by %d commit(s) since the branch left it.\n", r.Base, behind)
	}
	if dirty, err := workspace.WorkFiles(r); err == nil && len(dirty) > 0 {
		fmt.Fprintf(&b, "  %d uncommitted file(s) would not be merged: %s\n", len(dirty), shortList(dirty, 5))
	}
	fmt.Fprintf(&b, "\nAfter merging, owt would remove the session %s, the worktree %s and the branch %s.", r.Session, r.Path, r.Branch)
	return b.String(), false, nil
}

func shortList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(", … (%d more)", len(items)-n)
}
