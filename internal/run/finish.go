package run

import (
	"time"
)

// DoneInstruction is added to every task's text: how the agent tells owt
// its task ended.
const DoneInstruction = "When the task is finished, commit your work (owt never commits for you) and run " +
	"`owt done --summary \"what you did\"`. If you are blocked, run `owt done --blocked \"your question\"`; " +
	"if it cannot be done, `owt done --fail \"why\"`."

// Over reports whether no task can go on by itself (each ended or
// blocked) and nothing is left to land.
func (r *Run) Over() bool {
	for _, t := range r.Tasks {
		if (!t.State.Ended() && t.State != Blocked) || (t.State == Done && r.Into != "") {
			return false
		}
	}
	return true
}

// Finish ends a run no task of which can go on by itself, when nothing
// is left to land: finished, or failed (endState).
func (r *Run) Finish(now time.Time) []Event {
	if r.State == Finished || !r.Over() {
		return nil
	}
	return r.end(now)
}

// StartBase is the branch a task's record names as its base: the into
// branch once its parents landed there, else the run's base. (Without
// into, a child's branch starts at its parents' merged work: startPoint.)
func (r *Run) StartBase(pt *Task) string {
	if r.Into != "" && len(pt.DependsOn) > 0 {
		return r.Into
	}
	return r.Base
}
