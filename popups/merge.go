package popups

import (
	"errors"
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Merge is the Alt+m popup: for the worktree of the current session (a
// picker elsewhere) it shows the check report — uncommitted work, commits
// ahead and behind, overlaps with other agents, predicted conflicts — then
// asks, merges (or ships: commit everything, then merge) and tears the
// worktree down. When a merge would be refused, it says why and changes
// nothing.
func Merge(tm *tmux.Client, s Screen) error {
	useFormTheme(themeOf(tm, s))
	return finish(s, mergeOne(tm, s))
}

func mergeOne(tm *tmux.Client, s Screen) error {
	r, d, err := chooseTarget(tm, s, "merge")
	if err != nil {
		return err
	}
	rep, err := d.Check(r)
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
			if offerResolve(r, rep) {
				return resolveOffer(s, d, r, rep)
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
	after := afterLanding(r)
	if r.InPlace {
		after = fmt.Sprintf("Afterwards the session %s ends; your checkout %s stays on %s.", r.Session, r.Path, r.Branch)
	}
	ok, err := confirm(title, after, action)
	if err != nil || !ok {
		return orCancelled(err)
	}

	// control's verbs look again whether the agent took up work while the
	// user read the report, and note what landed for RECENT.
	out, err := d.Land(r, ship, nil)
	var refused *control.ReviewRefused
	if errors.As(err, &refused) {
		// The AI review ([review] enabled) failed or gave no verdict:
		// nothing changed yet; the user decides.
		res := refused.Result
		fmt.Fprintln(s.Out, "\nreview: "+res.Headline())
		for _, l := range res.Lines() {
			fmt.Fprintln(s.Out, "  "+l)
		}
		title := fmt.Sprintf("The AI review fails %s: %s anyway?", r.Name, strings.ToLower(action))
		if res.Verdict == land.ReviewUnavailable {
			title = fmt.Sprintf("No AI review of %s: %s without it?", r.Name, strings.ToLower(action))
		}
		ok, cerr := confirm(title, "Nothing was changed yet. "+after, action)
		if cerr != nil || !ok {
			return orCancelled(cerr)
		}
		out, err = d.Land(r, ship, &res)
	}
	if out.Name == "" {
		return err
	}
	fmt.Fprintf(s.Out, "\nmerged %s into %s (%s)\n", out.Branch, out.Target, out.Method)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "removed %s\n", r.Name)
	d.Tell(fmt.Sprintf("owt: merged %s into %s", r.Name, out.Target))
	return nil
}

// offerResolve says Alt+m offers owt resolve: the merge is refused for a
// predicted conflict with the base alone, and the agent can take it in
// its own worktree (not the user's checkout, nothing uncommitted, its
// turn over).
func offerResolve(r *state.Record, rep land.Report) bool {
	return len(rep.ConflictsWithBase()) > 0 && !isRemote(r) && !r.InPlace && !r.NoAgent && r.Swarm == nil && rep.Busy == "" &&
		len(rep.DirtyFiles) == 0 && !rep.OffBranch && !rep.BaseMissing && !rep.Missing
}

// resolveOffer asks whether the agent should resolve the conflicts, and
// does it through the desk (control.Resolve, as owt resolve does).
func resolveOffer(s Screen, d desk, r *state.Record, rep land.Report) error {
	title := fmt.Sprintf("Let the agent resolve the conflicts with %s in its worktree?", rep.Base)
	after := fmt.Sprintf("owt merges %s into %s in %s (never your checkout), leaving the conflicts for the agent to resolve, test and commit; owt commits nothing and checks its work before READY TO SHIP (owt resolve %s).",
		rep.Base, r.Branch, r.Path, r.Name)
	ok, err := confirm(title, after, "Resolve")
	if err != nil || !ok {
		return orCancelled(err)
	}
	line, err := d.Resolve(r)
	if err != nil {
		return err
	}
	line = untrusted.CleanLine(line) // file names are the agent's: drawn inert
	fmt.Fprintln(s.Out, "\n"+line)
	d.Tell("owt: " + line)
	s.waitKey("Press any key to close.")
	return nil
}
