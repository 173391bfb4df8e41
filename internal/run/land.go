package run

import (
	"os"
	"time"
)

// LandRetryAfter is how long a landing that could not be made waits before
// it is tried again by itself (the user may have moved their checkout off
// into, or resolved the conflict on the branch).
const LandRetryAfter = 15 * time.Second

// NextToLand is the first done task, in dependency order, whose parents
// are all landed or skipped; a task whose landing failed is tried again
// once landRetryAfter has passed.
func (r *Run) NextToLand(now time.Time) *TaskRun {
	for _, wave := range r.Plan.Waves() {
		for _, id := range wave {
			t, ok := r.Task(id)
			pt, ok2 := r.Plan.TaskByID(id)
			if !ok || !ok2 {
				continue
			}
			landFailed := t.State == NeedsYou && t.Failure != nil && t.Failure.Class == FailLand
			if t.State != Done && !(landFailed && now.Sub(t.Failure.At) >= LandRetryAfter) {
				continue
			}
			if r.parentsLanded(pt) {
				return t
			}
		}
	}
	return nil
}

// LandedIDs are the tasks that landed in into.
func (r *Run) LandedIDs() []string {
	var ids []string
	for _, t := range r.Tasks {
		if t.State == Landed {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

func (r *Run) parentsLanded(pt *Task) bool {
	for _, dep := range pt.DependsOn {
		if p, ok := r.Task(dep); !ok || (p.State != Landed && p.State != Skipped) {
			return false
		}
	}
	return true
}

func IsDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
