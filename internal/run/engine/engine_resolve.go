package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/resolve"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// A run whose plan (or the config's [run]) says on_conflict = "resolve"
// hands a task's first landing conflict to its agent, in its own
// worktree (owt resolve, with into as the branch merged in): the task
// stays done, its landing waits until owt verified the agent's work, and
// is tried then. A second conflict of the task needs the user, as every
// conflict does without it. The user's checkout is never part of it.

// resolving is what a landing conflict led to.
type resolving struct {
	started bool
	why     string // the task's why while it resolves, or why no resolve started
}

// onConflict is the run's on_conflict: its plan's, else the config's.
func onConflict(r *run.Run, w *workspace.Workspace) string {
	if r.Plan.OnConflict != "" {
		return r.Plan.OnConflict
	}
	return w.Config.Run.OnConflict
}

// resolveOnConflict starts the resolve of t's landing conflict landErr,
// when the run says so and t had none yet.
func (e *Engine) resolveOnConflict(r *run.Run, t *run.TaskRun, landErr error) resolving {
	var ce *land.ConflictError
	if landErr == nil || !errors.As(landErr, &ce) || t.Name == "" {
		return resolving{}
	}
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil || onConflict(r, w) != config.OnConflictResolve {
		return resolving{}
	}
	if t.Resolves > 0 {
		return resolving{why: "it conflicts again after its agent resolved a conflict once (on_conflict = \"resolve\" hands one conflict to the agent): you decide"}
	}
	rec, err := w.Get(t.Name)
	if err != nil {
		return resolving{why: "owt resolve: " + err.Error()}
	}
	st, _, started, err := control.Resolve(w, rec, resolve.Options{Into: r.Into, Run: r.Name, Task: t.ID})
	if err != nil || !started {
		if err == nil {
			err = errors.New("nothing started")
		}
		return resolving{why: "owt resolve could not hand it to the agent: " + err.Error()}
	}
	why := fmt.Sprintf("its agent resolves the conflicts with %s in %s (owt resolve); it lands once owt verified them", r.Into, untrusted.Some(st.Files, 5))
	if st.How == "" {
		why = fmt.Sprintf("the conflicts with %s are left in its worktree, but its agent was not told (%s): 'owt resolve %s'", r.Into, st.Untold, t.Name)
	}
	return resolving{started: true, why: why}
}

// resolveHeld says t's landing waits for its agent's resolve: under way,
// or not verified yet. A resolve owt found wrong makes the task need the
// user, with owt's reason.
func (e *Engine) resolveHeld(r *run.Run, t *run.TaskRun, now time.Time) (bool, error) {
	if t.Resolves == 0 || t.Name == "" {
		return false, nil
	}
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil {
		return false, nil
	}
	rec, err := w.Get(t.Name)
	if err != nil || rec.Resolve == nil || rec.Resolve.Run != r.Name || rec.Resolve.Task != t.ID {
		return false, nil
	}
	res := rec.Resolve
	switch {
	case res.Ready():
		return false, nil
	case res.Verdict == "" && res.Told:
		return true, nil // the agent works on it, or owt has not checked it yet
	}
	why := "its agent's resolve of the conflicts with " + r.Into + " is not ready: " + res.Verdict
	if !res.Told {
		why = "its agent was not told of the conflicts left in its worktree (" + res.Untold + "): 'owt resolve " + t.Name + "'"
	}
	return true, e.Store.Update(r.Name, func(cur *run.Run) ([]run.Event, error) {
		ct, ok := cur.Task(t.ID)
		if !ok || ct.State != t.State || ct.Name != t.Name {
			return nil, nil
		}
		// As a landing that failed: the user decides, and it is looked at
		// again now and then (the agent or the user may put it right).
		ct.Failure = &run.Failure{Class: run.FailLand, Error: untrusted.From(why), At: now}
		if ct.State == run.NeedsYou && ct.Why == why {
			cur.UpdatedAt = now
			return nil, nil
		}
		ct.Why = why
		cur.SetTask(ct, run.NeedsYou, now)
		return []run.Event{{At: now, Event: "needs_you", Task: ct.ID, Detail: why}}, nil
	})
}
