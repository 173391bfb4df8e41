package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// landNext lands one done task in the run's into branch, through owt
// merge's path (a checkout on into is touched only when it is clean, as
// owt merge does; a conflict changes nothing): the first, in dependency
// order, whose parents all landed or were skipped. One a tick keeps a
// tick short.
func (e *Engine) landNext(name string, now time.Time) error {
	r, err := e.Store.Load(name)
	if err != nil || r.Into == "" || r.State != run.Active {
		return err
	}
	t := r.NextToLand(now)
	if t == nil {
		return nil
	}
	if t.Host != "" {
		return e.landRemote(r, t, now) // its branch comes home first: engine_remote.go
	}
	if e.landingHeld(r, t, now) {
		return nil // the user is on its agent's pane
	}
	if held, err := e.resolveHeld(r, t, now); held || err != nil {
		return err // its agent resolves a conflict: landed once owt verified it
	}
	res, err := e.land(r, t)
	return e.recordLanding(name, t, res, err, e.resolveOnConflict(r, t, err))
}

// recordLanding records how landing task t went: landed as res says, or
// needing the user with err, or handed to its agent to resolve.
func (e *Engine) recordLanding(name string, t *run.TaskRun, res land.Result, err error, resolving resolving) error {
	now := time.Now()
	return e.Store.Update(name, func(cur *run.Run) ([]run.Event, error) {
		ct, ok := cur.Task(t.ID)
		if !ok || ct.State != t.State || ct.Name != t.Name {
			return nil, nil
		}
		if resolving.started {
			ct.Resolves++
			ct.Why, ct.Failure, cur.UpdatedAt = resolving.why, nil, now
			if ct.State != run.Done {
				cur.SetTask(ct, run.Done, now) // a landing tried again: it waits for the resolve
			}
			return []run.Event{{At: now, Event: "resolving", Task: ct.ID, Detail: resolving.why}}, nil
		}
		if err != nil && resolving.why != "" {
			err = fmt.Errorf("%w; %s", err, resolving.why)
		}
		if err != nil {
			// Nothing landed: the user decides (the agent is left alone);
			// it is tried again now and then, and said again only when the
			// reason changes.
			why := "landing in " + cur.Into + ": " + err.Error()
			ct.Failure = &run.Failure{Class: run.FailLand, Error: untrusted.From(err.Error()), At: now}
			if ct.State == run.NeedsYou && ct.Why == why {
				cur.UpdatedAt = now // kept quietly: the next try waits landRetryAfter
				return nil, nil
			}
			ct.Why = why
			cur.SetTask(ct, run.NeedsYou, now)
			return []run.Event{{At: now, Event: "needs_you", Task: ct.ID, Detail: ct.Why}}, nil
		}
		ct.Failure, ct.Why, ct.LandedTip = nil, "", res.BranchTip
		cur.SetTask(ct, run.Landed, now)
		evs := []run.Event{{At: now, Event: "landed", Task: ct.ID,
			Detail: fmt.Sprintf("%s into %s (%s, %.12s)", res.Branch, res.Target, res.Method, res.Commit)}}
		return append(evs, cur.Finish(now)...), nil
	})
}

// land merges the task's branch into into, making into from the run's
// base first if it does not exist and nothing landed in it yet.
func (e *Engine) land(r *run.Run, t *run.TaskRun) (land.Result, error) {
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil {
		return land.Result{}, err
	}
	rec, err := w.Get(t.Name)
	if err != nil {
		return land.Result{}, err
	}
	if err := checkLandable(r, t, rec, &e.works); err != nil {
		return land.Result{}, err
	}
	if err := ensureInto(w.Repo, r); err != nil {
		return land.Result{}, err
	}
	// Work already in into (an empty allow_empty task, or a landing a
	// crashed monitor made but did not record) has landed.
	if ahead, _, err := w.Repo.AheadBehind(git.BranchRef(r.Into), git.BranchRef(rec.Branch)); err != nil {
		return land.Result{}, err
	} else if ahead == 0 {
		return alreadyThere(w.Repo, r.Into, rec)
	}
	// A clean checkout on into is moved exactly as owt merge moves it; a
	// dirty one, or one an agent works in mid-turn, is refused there, with
	// the reason, and left alone.
	// What the checks wrote in the task's worktree is not uncommitted work.
	workFiles := func(r *state.Record) ([]string, error) {
		files, err := lifecycle.WorkFiles(r)
		if err != nil || r.Name != rec.Name {
			return files, err
		}
		return t.Memo.Checks.NotCheckOutput(r.Path, files), nil
	}
	ctx := &land.Context{Git: w.Repo, Records: w.Records, WorkFiles: workFiles, EditedCopies: lifecycle.EditedCopies}
	return ctx.Merge(rec, land.Options{Into: r.Into})
}

// alreadyThere is the landing of rec's branch, whose commits into holds
// already.
func alreadyThere(repo git.Repo, into string, rec *state.Record) (land.Result, error) {
	tips, err := repo.ResolveCommits([]string{"refs/heads/" + into, "refs/heads/" + rec.Branch})
	if err != nil {
		return land.Result{}, err
	}
	return land.Result{Name: rec.Name, Branch: rec.Branch, Target: into, Method: "already there", Commit: tips[0], BranchTip: tips[1]}, nil
}

// ensureInto makes the run's into from its base when it does not exist
// and nothing landed in it yet.
func ensureInto(repo git.Repo, r *run.Run) error {
	if !repo.BranchExists(r.Into) {
		if landed := r.LandedIDs(); len(landed) > 0 {
			// Its landed work is gone with it: checkInto pauses the run.
			return fmt.Errorf("%s no longer exists, with the work of %s in it; it is not made again from %s behind your back",
				r.Into, strings.Join(landed, ", "), r.Base)
		}
		if !repo.BranchExists(r.Base) {
			return fmt.Errorf("%s does not exist yet and its base branch %s is gone, so it cannot be made from it: make it (git branch %s START) or bring %s back; the landing is tried again on its own",
				r.Into, r.Base, r.Into, r.Base)
		}
		base, err := repo.ResolveCommit(git.BranchRef(r.Base))
		if err != nil {
			return fmt.Errorf("make %s from %s: %w", r.Into, r.Base, err)
		}
		if err := repo.CreateBranchAt(r.Into, base); err != nil {
			return err
		}
	}
	return nil
}

// checkLandable refuses to land a branch that is not the task's work:
// HEAD of its worktree elsewhere, or no change against the task's start
// (unless allow_empty). Judged done on it once, the branch may have moved
// since: nothing is called landed that is not there. memo (nil: none)
// reuses a reading of the branch while nothing moved.
func checkLandable(r *run.Run, t *run.TaskRun, rec *state.Record, memo *run.WorkMemo) error {
	if !run.IsDir(rec.Path) {
		return nil // owt merge's own checks say what a missing worktree allows
	}
	// The base's commits are not the task's work, unless it lands in the
	// base: there they may be its own, landed already (as in into, which
	// is not left out here for that reason).
	var w run.BranchWork
	var err error
	if r.Into == rec.Base {
		w, err = memo.WorkOf(rec)
	} else {
		w, err = memo.JudgedWorkOf(rec, "")
	}
	if err != nil {
		return err
	}
	if why := w.Problem(rec.Path); why != "" {
		return errors.New(why)
	}
	if pt, ok := r.Plan.TaskByID(t.ID); w.Empty() && !(ok && pt.AllowEmpty) {
		return errors.New(w.EmptyWhy() + ": nothing to land")
	}
	return nil
}
