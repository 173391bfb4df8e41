package run

import (
	"fmt"
	"strings"
	"time"
)

// Failure classes: what went wrong in an attempt.
const (
	FailStart   = "start"   // the worktree, session or agent could not be made
	FailCrash   = "crash"   // the agent exited non-zero
	FailAgent   = "agent"   // the agent said so: owt done --fail
	FailTimeout = "timeout" // the attempt used up its active time
	FailStall   = "stall"   // the agent stopped making progress
	FailLand    = "land"    // the task's work could not land in into
)

// Jitter returns a number in [0, 1): the random part of a backoff. The
// engine passes math/rand; tests pass a constant.
type Jitter func() float64

// BackoffDelay is how long to wait after failed attempt number attempt
// (1 for the first): the plan's backoff doubled for each attempt before
// it, ±20% jitter, never more than backoff_max.
func BackoffDelay(r Retry, attempt int, jitter Jitter) time.Duration {
	d, limit := time.Duration(r.Backoff), time.Duration(r.BackoffMax)
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	d = time.Duration(float64(d) * (0.8 + 0.4*jitter()))
	if limit > 0 && d > limit {
		d = limit
	}
	return d
}

// Fail records that the current attempt of task id failed. With attempts
// left the task backs off until NextStart (persisted, so a restart or a
// status that comes and goes never resets the count); without, it is
// failed and every task that depends on it is blocked.
func (r *Run) Fail(id string, f Failure, jitter Jitter, now time.Time) ([]Event, error) {
	t, ok := r.Task(id)
	if !ok {
		return nil, fmt.Errorf("run %s has no task %q", r.Name, id)
	}
	if t.State.Ended() {
		return nil, fmt.Errorf("task %s is already %s", id, t.State)
	}
	f.At = now
	t.Failure = &f
	detail := fmt.Sprintf("attempt %d: %s: %s", t.Attempt, f.Class, f.Error.Block())
	if t.Attempt < r.AttemptsOf(t) {
		t.NextStart = now.Add(BackoffDelay(r.Plan.Retry, t.Attempt, jitter))
		r.SetTask(t, Backoff, now)
		return []Event{{At: now, Event: "backoff", Task: id, Detail: detail + "; next start " + t.NextStart.UTC().Format(time.RFC3339)}}, nil
	}
	t.NextStart = time.Time{}
	r.SetTask(t, Failed, now)
	evs := []Event{{At: now, Event: "failed", Task: id, Detail: detail + "; no attempts left"}}
	return append(evs, r.Reblock(now)...), nil
}

// Retry is owt run retry: a failed, cancelled or stuck task gets one more
// attempt now, in the worktree it has (its commits are kept). Its
// dependents blocked by it wait for it again.
func (r *Run) Retry(id string, now time.Time) ([]Event, error) {
	t, ok := r.Task(id)
	if !ok {
		return nil, fmt.Errorf("run %s has no task %q", r.Name, id)
	}
	if t.lostLanding() {
		return r.relandLost(t, now), nil // its work is done: it lands again
	}
	switch t.State {
	case Failed, Cancelled, NeedsYou, Backoff:
	default:
		return nil, fmt.Errorf("task %s is %s: only a failed, cancelled, stuck or backing-off task can be retried", id, t.State)
	}
	if t.Attempt >= r.AttemptsOf(t) {
		// One more attempt than it had: the next failure ends it.
		t.Granted = t.Attempt + 1 - r.Plan.Retry.MaxAttempts
	}
	t.NextStart = time.Time{}
	r.SetTask(t, Pending, now)
	evs := []Event{{At: now, Event: "retry", Task: id}}
	return append(evs, r.Reblock(now)...), nil
}

// Skip is owt run skip: the task will not run (a running agent is left
// alone) and counts as done for its dependents, which are released.
func (r *Run) Skip(id string, now time.Time) ([]Event, error) {
	return r.endByUser(id, Skipped, "skipped", now)
}

// Cancel is owt run cancel: the task will not run and its dependents are
// blocked until it is retried or skipped.
func (r *Run) Cancel(id string, now time.Time) ([]Event, error) {
	return r.endByUser(id, Cancelled, "cancelled", now)
}

func (r *Run) endByUser(id string, to TaskState, event string, now time.Time) ([]Event, error) {
	t, ok := r.Task(id)
	if !ok {
		return nil, fmt.Errorf("run %s has no task %q", r.Name, id)
	}
	switch t.State {
	case Done, Landed, Skipped, Cancelled:
		return nil, fmt.Errorf("task %s is already %s", id, t.State)
	}
	t.NextStart = time.Time{}
	r.SetTask(t, to, now)
	evs := []Event{{At: now, Event: event, Task: id}}
	return append(evs, r.Reblock(now)...), nil
}

// Reblock makes the blocked set true again after a task's state changed:
// a waiting task (pending or in backoff) whose dependency failed, was
// cancelled or is itself blocked becomes blocked by it; a task blocked by
// dependencies none of which holds it any more is pending again. Tasks
// blocked for another reason (BlockedBy empty) are left to whoever
// blocked them. It returns the events of what changed.
func (r *Run) Reblock(now time.Time) []Event {
	var evs []Event
	// Waves are in dependency order, so one pass sees each parent settled
	// before its children.
	for _, wave := range r.Plan.Waves() {
		for _, id := range wave {
			t, ok := r.Task(id)
			pt, ok2 := r.Plan.TaskByID(id)
			if !ok || !ok2 {
				continue
			}
			holders := r.holders(pt)
			switch {
			case len(holders) > 0 && (t.State == Pending || t.State == Backoff):
				t.BlockedBy = holders
				r.SetTask(t, Blocked, now)
				evs = append(evs, Event{At: now, Event: "blocked", Task: id, Detail: "by " + strings.Join(holders, ", ")})
			case len(holders) > 0 && t.State == Blocked && len(t.BlockedBy) > 0:
				t.BlockedBy = holders
			case len(holders) == 0 && t.State == Blocked && len(t.BlockedBy) > 0:
				t.BlockedBy = nil
				r.SetTask(t, Pending, now)
				evs = append(evs, Event{At: now, Event: "released", Task: id})
			}
		}
	}
	return evs
}

// holders are the dependencies of task that keep it from ever starting
// as things stand: failed, cancelled, or blocked themselves.
func (r *Run) holders(task *Task) []string {
	var ids []string
	for _, dep := range task.DependsOn {
		parent, ok := r.Task(dep)
		if !ok {
			continue
		}
		switch parent.State {
		case Failed, Cancelled, Blocked:
			ids = append(ids, dep)
		}
	}
	return ids
}

func (r *Run) SetTask(t *TaskRun, s TaskState, now time.Time) {
	if t.State != s {
		t.State, t.Since = s, now
	}
	r.UpdatedAt = now
}

// ActiveClock counts the active time of an attempt: time the agent spends
// waiting for the user, or with the user on its pane, does not count
// towards the timeout. The engine calls Run or Hold whenever it looks at
// the agent; the clock is kept on the task, so it survives restarts.
type ActiveClock struct {
	// Counted is the active time before Since.
	Counted Duration `json:"counted"`
	// Since is when the current active stretch began; zero while held.
	Since time.Time `json:"since,omitzero"`
}

// Run starts or goes on counting from now.
func (c *ActiveClock) Run(now time.Time) {
	if c.Since.IsZero() {
		c.Since = now
	}
}

// Hold stops counting at now; the time so far is kept.
func (c *ActiveClock) Hold(now time.Time) {
	if !c.Since.IsZero() {
		if d := now.Sub(c.Since); d > 0 {
			c.Counted += Duration(d)
		}
		c.Since = time.Time{}
	}
}

// Active is the active time up to now.
func (c ActiveClock) Active(now time.Time) time.Duration {
	d := time.Duration(c.Counted)
	if !c.Since.IsZero() && now.After(c.Since) {
		d += now.Sub(c.Since)
	}
	return d
}

// TimedOut reports whether the attempt has used up limit (0: never).
func (c ActiveClock) TimedOut(limit time.Duration, now time.Time) bool {
	return limit > 0 && c.Active(now) >= limit
}

// AttemptsOf is how many attempts task t may have: the plan's, and one
// more for each owt run retry after they ran out.
func (r *Run) AttemptsOf(t *TaskRun) int {
	return r.Plan.Retry.MaxAttempts + t.Granted
}
