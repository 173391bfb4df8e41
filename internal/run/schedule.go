package run

import (
	"fmt"
	"time"
)

// Ready returns the ids of the tasks that may start now, in plan order,
// no more than the run's free slots (max_concurrent less the tasks whose
// agents are alive). A task is ready when it is pending, or in backoff
// with its next start come, and every dependency is satisfied. Nothing is
// ready in a run that is not active.
func Ready(r *Run, now time.Time) []string {
	if r.State != Active {
		return nil
	}
	free := r.Plan.MaxConcurrent
	byID := make(map[string]*TaskRun, len(r.Tasks))
	for _, t := range r.Tasks {
		byID[t.ID] = t
		if t.State.Occupies() {
			free--
		}
	}
	var ready []string
	for i := range r.Plan.Tasks {
		if len(ready) >= free {
			break
		}
		task := &r.Plan.Tasks[i]
		t, ok := byID[task.ID]
		if !ok || !due(t, now) {
			continue
		}
		if r.dependenciesMet(task, byID) {
			ready = append(ready, task.ID)
		}
	}
	return ready
}

// due reports whether t is waiting to start and its time has come.
func due(t *TaskRun, now time.Time) bool {
	switch t.State {
	case Pending:
		return true
	case Backoff:
		return !now.Before(t.NextStart)
	}
	return false
}

// dependenciesMet: each parent is skipped, landed, or, in a run without an
// into branch, done. With into, a child starts from into's tip, so its
// parents must have landed there first.
func (r *Run) dependenciesMet(task *Task, byID map[string]*TaskRun) bool {
	for _, dep := range task.DependsOn {
		parent, ok := byID[dep]
		if !ok {
			return false
		}
		switch parent.State {
		case Skipped, Landed:
		case Done:
			if r.Into != "" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// Event is one line of a run's event log.
type Event struct {
	At     time.Time `json:"at"`
	Event  string    `json:"event"`
	Task   string    `json:"task,omitempty"`
	Detail string    `json:"detail,omitempty"`
}

// The run-state changes a user asks for, and the event each one logs.
var stateEvents = map[RunState]string{Active: "resumed", Paused: "paused", Stopped: "stopped"}

// SetState moves the run to state to, as owt run pause, resume and stop
// ask, and returns the event to log; changed is false when the run is
// already there. A finished run stays finished.
func (r *Run) SetState(to RunState, now time.Time) (ev Event, changed bool, err error) {
	name, ok := stateEvents[to]
	if !ok {
		return Event{}, false, fmt.Errorf("a run cannot be set %s", to)
	}
	if r.State == Finished {
		return Event{}, false, fmt.Errorf("run %s is finished", r.Name)
	}
	if r.State == RunFailed {
		return Event{}, false, fmt.Errorf("run %s failed (%s)", r.Name, r.Why)
	}
	if r.State == to {
		return Event{}, false, nil
	}
	ev = Event{At: now, Event: name, Detail: fmt.Sprintf("%s → %s", r.State, to)}
	r.State, r.UpdatedAt, r.Why = to, now, ""
	return ev, true, nil
}
