package control

import (
	"errors"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/resolve"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Resolve hands rec's predicted conflict with its base (o.Into, for a
// run) to its agent, in its own worktree (owt resolve, the control
// popup's r, Alt+m's offer, a run's on_conflict = "resolve"). It holds the
// landing lock of the worktree, so no merge or ship of it runs meanwhile.
//
// A resolve under way is checked instead, and reported (started false,
// the verdict saying how it stands): only one that did not reach the
// agent is told again, and only one that is over and conflicts anew (the
// base moved on, the agent aborted the merge) starts again.
func Resolve(w *workspace.Workspace, rec *state.Record, o resolve.Options) (st resolve.Started, v resolve.Verdict, started bool, err error) {
	release, rec, err := holdLanding(w, rec)
	if err != nil {
		return st, v, false, err
	}
	defer release()
	if rec, err = resolve.Settle(w, rec); err != nil {
		return st, v, false, err
	}
	if r := rec.Resolve; r != nil && r.Told {
		if v, err = resolve.Check(w, rec, true); err != nil || v.Ready || v.Pending {
			return st, v, false, err
		}
		if op, _ := git.OperationInProgress(rec.Path); op != "" {
			return st, v, false, nil // the agent's merge, not finished: said by the verdict
		}
		st, err = resolve.Start(w, rec, o)
		if errors.Is(err, resolve.ErrNoConflict) {
			return st, v, false, nil // nothing new to resolve: the verdict stands
		}
	} else {
		st, err = resolve.Start(w, rec, o)
	}
	if err != nil {
		return st, v, false, err
	}
	Note(Event{Repo: w.Repo.Root, Name: rec.Name, Event: "resolving", Detail: "conflicts with " + st.Target + " handed to its agent"})
	return st, v, true, nil
}

// ResolveStatus checks rec's resolve now and saves the verdict (owt
// resolve NAME --status): it starts nothing.
func ResolveStatus(w *workspace.Workspace, rec *state.Record) (resolve.Verdict, error) {
	cur, err := resolve.Settle(w, rec)
	if err != nil {
		return resolve.Verdict{Name: rec.Name}, err
	}
	return resolve.Check(w, cur, true)
}
