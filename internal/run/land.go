package run

import (
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/merge"
	"github.com/owt-tmux/owt/internal/workspace"
)

// landNext lands one done task in the run's into branch, through owt
// merge's path (never the user's checkout unless it is clean and on into;
// a conflict changes nothing): the first, in dependency order, whose
// parents all landed or were skipped. One a tick keeps a tick short.
func (e *Engine) landNext(name string, now time.Time) error {
	r, err := e.Store.Load(name)
	if err != nil || r.Into == "" || r.State != Active {
		return err
	}
	t := r.nextToLand()
	if t == nil || e.landingHeld(r, t, now) {
		return nil // nothing to land, or the user is on its agent's pane
	}
	res, err := e.land(r, t)
	now = time.Now()
	return e.Store.Update(name, func(cur *Run) ([]Event, error) {
		ct, ok := cur.Task(t.ID)
		if !ok || ct.State != Done || ct.Name != t.Name {
			return nil, nil
		}
		if err != nil {
			// Nothing landed: the user decides (the agent is left alone).
			ct.Failure = &Failure{Class: FailLand, Error: err.Error(), At: now}
			ct.Why = "landing in " + cur.Into + ": " + err.Error()
			cur.setTask(ct, NeedsYou, now)
			return []Event{{At: now, Event: "needs_you", Task: ct.ID, Detail: ct.Why}}, nil
		}
		cur.setTask(ct, Landed, now)
		evs := []Event{{At: now, Event: "landed", Task: ct.ID,
			Detail: fmt.Sprintf("%s into %s (%s, %.12s)", res.Branch, res.Target, res.Method, res.Commit)}}
		return append(evs, cur.finish(now)...), nil
	})
}

// nextToLand is the first done task, in dependency order, whose parents
// are all landed or skipped.
func (r *Run) nextToLand() *TaskRun {
	for _, wave := range r.Plan.Waves() {
		for _, id := range wave {
			t, ok := r.Task(id)
			pt, ok2 := r.Plan.TaskByID(id)
			if !ok || !ok2 || t.State != Done {
				continue
			}
			if r.parentsLanded(pt) {
				return t
			}
		}
	}
	return nil
}

func (r *Run) parentsLanded(pt *Task) bool {
	for _, dep := range pt.DependsOn {
		if p, ok := r.Task(dep); !ok || (p.State != Landed && p.State != Skipped) {
			return false
		}
	}
	return true
}

// land merges the task's branch into into, making into from the run's
// base first if it does not exist.
func (e *Engine) land(r *Run, t *TaskRun) (merge.Result, error) {
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil {
		return merge.Result{}, err
	}
	rec, err := w.Get(t.Name)
	if err != nil {
		return merge.Result{}, err
	}
	if !w.Repo.BranchExists(r.Into) {
		base, err := w.Repo.ResolveCommit(r.Base)
		if err != nil {
			return merge.Result{}, err
		}
		if err := w.Repo.CreateBranchAt(r.Into, base); err != nil {
			return merge.Result{}, err
		}
	}
	ctx := &merge.Context{Git: w.Repo, Records: w.Records, WorkFiles: workspace.WorkFiles, EditedCopies: workspace.EditedCopies}
	return ctx.Merge(rec, merge.Options{Into: r.Into})
}
