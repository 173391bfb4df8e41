package popups

import (
	"fmt"
	"os/signal"
	"syscall"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/merge"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// mergeContext is the merge engine over one workspace.
func mergeContext(w *workspace.Workspace) *merge.Context {
	return &merge.Context{Git: w.Repo, Records: w.Records, WorkFiles: lifecycle.WorkFiles, EditedCopies: lifecycle.EditedCopies}
}

// Merge is the Alt+m popup: for the worktree of the current session (a
// picker elsewhere) it shows the check report — uncommitted work, commits
// ahead and behind, overlaps with other agents, predicted conflicts — then
// asks, merges (or ships: commit everything, then merge) and tears the
// worktree down. When a merge would be refused, it says why and changes
// nothing.
func Merge(tm *tmux.Client, s Screen) error {
	return finish(s, mergeOne(tm, s))
}

func mergeOne(tm *tmux.Client, s Screen) error {
	t, h, err := chooseTarget(tm, "merge")
	if err != nil {
		return err
	}
	r := t.rec
	mc := mergeContext(t.w)
	rep, err := mc.Check(r, "")
	if err != nil {
		return err
	}
	fmt.Fprintln(s.Out, rep.String())

	// With uncommitted work, the way home is ship: commit it all, then
	// merge. Not while the agent works or waits: that work is its turn's.
	ship := rep.Busy == "" && !rep.BaseMissing && len(rep.DirtyFiles) > 0 && !rep.Empty && len(rep.ConflictsWithBase()) == 0 && len(rep.BaseCheckoutDirty) == 0
	if !ship {
		if blockers := rep.Blockers(); len(blockers) > 0 {
			fmt.Fprintln(s.Out, "\nMerge would be refused:")
			for _, b := range blockers {
				fmt.Fprintln(s.Out, "  ! "+b)
			}
			fmt.Fprintln(s.Out, "\nNothing was changed.")
			s.waitKey("Press any key to close.")
			return nil
		}
	}
	title := fmt.Sprintf("Merge %s into %s?", r.Branch, rep.Base)
	action := "Merge"
	if ship {
		title = fmt.Sprintf("Commit %d file(s) and merge %s into %s?", len(rep.DirtyFiles), r.Branch, rep.Base)
		action = "Ship"
	}
	ok, err := confirm(title, fmt.Sprintf("Afterwards the session %s, the worktree and the branch are removed.", r.Session), action)
	if err != nil || !ok {
		return orCancelled(err)
	}

	// The agent may have taken up work while the user read the report.
	verbing := "merging"
	if ship {
		verbing = "shipping"
	}
	if err := control.RefuseBusy(t.w, r, verbing, false); err != nil {
		return err
	}
	var res merge.Result
	if ship {
		sr, err := mc.Ship(r, "")
		if err != nil {
			return err
		}
		res = sr.Result
	} else if res, err = mc.Merge(r, merge.Options{}); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "\nmerged %s into %s (%s)\n", res.Branch, res.Target, res.Method)
	if err := teardown(tm, t.w, r, h, res.BranchTip); err != nil {
		return fmt.Errorf("merged, but %w", err)
	}
	fmt.Fprintf(s.Out, "removed %s\n", r.Name)
	_ = tm.DisplayMessage(h.Client, fmt.Sprintf("owt: merged %s into %s", r.Name, res.Target))
	return nil
}

// teardown removes a landed worktree. It must finish even if the popup
// closes under it, and it moves the client off the session first so the
// client is not detached.
func teardown(tm *tmux.Client, w *workspace.Workspace, r *state.Record, h tmux.Here, tip string) error {
	signal.Ignore(syscall.SIGHUP)
	if h.SessionName == r.Session {
		if other := otherSession(tm, r.Session, r.Repo); other != "" {
			_ = tm.SwitchClientOf(h.Client, other)
		}
	}
	return lifecycle.Of(w).Teardown(r.Name, tip)
}
