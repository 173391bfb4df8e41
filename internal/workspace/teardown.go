package workspace

import (
	"fmt"
	"os"
)

// Teardown removes a worktree whose work has just landed elsewhere (owt
// merge, ship, cleanup): its session, worktree, branch and record. The
// caller checked the work landed with the branch at branchTip; Teardown
// refuses, changing nothing, if the worktree gained uncommitted work or
// the branch moved since, so nothing done in the meantime is lost. An
// empty branchTip skips the branch check.
func (w *Workspace) Teardown(name, branchTip string) error {
	r, err := w.Get(name)
	if err != nil {
		return err
	}
	if _, err := os.Stat(r.Path); err == nil {
		work, err := WorkFiles(r)
		if err != nil {
			return fmt.Errorf("check %s for uncommitted work: %w", r.Path, err)
		}
		if len(work) > 0 {
			return fmt.Errorf("kept %s: it has uncommitted changes made after the check (%s); 'owt delete %s --force' removes it anyway",
				name, Loss{DirtyFiles: work}, name)
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
