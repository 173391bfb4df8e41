package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// jitter is the engine's source of backoff jitter: math/rand unless a
// test gave one.
func (e *Engine) jitter() run.Jitter {
	if e.Jitter != nil {
		return e.Jitter
	}
	return rand.Float64
}

// retryHeldWhy is what a task whose retry waits for the user to leave
// its pane says.
const retryHeldWhy = "its retry is held while you are on its pane: the agent restarts when you leave its pane"

// retriesHeld are the tasks of ids about to be retried whose agent's pane
// has the user's client on it: owt restarts no agent in front of the
// user (as it sends nothing then), so they wait until the user leaves.
// The monitor's snapshot knows: no tmux call.
func (e *Engine) retriesHeld(r *run.Run, ids []string) map[string]bool {
	held := map[string]bool{}
	var recs map[string]*state.Record
	for _, id := range ids {
		t, ok := r.Task(id)
		if !ok || t.State != run.Backoff || t.Name == "" || e.UserOnPane == nil {
			continue
		}
		if recs == nil {
			f, err := state.ForRepo(r.Repo).Peek()
			if err != nil {
				e.logf(r.Repo, "", "run %s: read worktree state: %v", r.Name, err)
				return held
			}
			recs = f.Records
		}
		if rec := recs[t.Name]; rec != nil && e.userOnPane(rec.Pane) {
			held[id] = true
		}
	}
	return held
}

// holdRetry keeps task t in backoff while the user is on its pane,
// saying so once.
func holdRetry(t *run.TaskRun, now time.Time) []run.Event {
	if t.Why == retryHeldWhy {
		return nil
	}
	t.Why = retryHeldWhy
	return []run.Event{{At: now, Event: "held", Task: t.ID, Detail: "retry held: the user is on its pane; it restarts when the user leaves"}}
}

// attemptStart is what startReady knows of a task it marked starting:
// its worktree from an earlier attempt and why that attempt ended.
type attemptStart struct {
	id      string
	name    string       // the worktree of an earlier attempt, "" for none
	failure *run.Failure // why the last attempt failed; nil for a first start or a user's retry of a stuck task
	attempt int
}

// launch starts an attempt: in the worktree an earlier attempt left, the
// agent restarts there with what went wrong (its commits and files are
// kept); without one, a fresh Create.
func (e *Engine) launch(r *run.Run, a attemptStart) (*state.Record, placedAt, error) {
	if a.name == "" {
		return e.create(r, a.id, a.attempt)
	}
	if t, ok := r.Task(a.id); ok && t.Host != "" {
		return e.retryOnHost(r, t, a)
	}
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil {
		return nil, placedAt{}, err
	}
	rec, err := w.Get(a.name)
	if errors.Is(err, state.ErrUnknownName) {
		return e.create(r, a.id, a.attempt) // the worktree was deleted: start afresh
	}
	if err != nil {
		return nil, placedAt{}, err
	}
	pt, ok := r.Plan.TaskByID(a.id)
	if !ok {
		return nil, placedAt{}, fmt.Errorf("run %s has no task %q", r.Name, a.id)
	}
	tail, err := lifecycle.Of(w).PaneTail(rec, run.TailLines)
	if err != nil {
		e.logf(r.Repo, rec.Name, "run %s: task %s: read its pane: %v", r.Name, a.id, err)
	}
	rec, err = lifecycle.Of(w).Restart(a.name, run.RetryPrompt(pt.Task, a.attempt, a.failure, tail))
	return rec, placedAt{}, err
}

// retryOnHost starts another attempt of task t, whose last agent ran on
// a host, on a host its placement allows (that one, or another with
// room): a new agent in a new worktree from the task's start, named for
// the attempt. The earlier agent is left where it is, as it was, and the
// new one is told so.
func (e *Engine) retryOnHost(r *run.Run, t *run.TaskRun, a attemptStart) (*state.Record, placedAt, error) {
	pt, ok := r.Plan.TaskByID(a.id)
	if !ok {
		return nil, placedAt{}, fmt.Errorf("run %s has no task %q", r.Name, a.id)
	}
	if pt.Issue != 0 {
		return nil, placedAt{}, fmt.Errorf("a task with an issue cannot run on a host yet (owt new --issue --host is not supported)")
	}
	sp, err := e.startPoint(r, pt)
	if err != nil {
		return nil, placedAt{}, err
	}
	task := run.FreshRetryPrompt(pt.Task, a.attempt, a.failure, a.name+"@"+t.Host)
	if sp.Brief != "" {
		task = sp.Brief + "\n\n" + task
	}
	rs, err := e.createOnHost(r, pt, sp, fmt.Sprintf("%s-%s-a%d", r.Name, a.id, a.attempt), task, "")
	return rs.rec, rs.at, err
}
