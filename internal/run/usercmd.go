package run

import (
	"errors"
	"fmt"
	"time"
)

// ErrNoSuchTask marks a task id the run does not have.
var ErrNoSuchTask = errors.New("no such task")

// TaskCommands are the commands a user gives about one task of a run.
var TaskCommands = map[string]func(r *Run, id string, now time.Time) ([]Event, error){
	"retry":  (*Run).Retry,
	"skip":   (*Run).Skip,
	"cancel": (*Run).Cancel,
}

// TaskCommand applies owt run retry|skip|cancel (verb) to task id. A
// finished run goes on when the command gives one of its tasks another
// attempt or releases its dependents (so does a failed one); one whose
// every task has ended by it finishes.
func (r *Run) TaskCommand(verb, id string, now time.Time) ([]Event, error) {
	cmd, ok := TaskCommands[verb]
	if !ok {
		return nil, fmt.Errorf("owt run has no command %q about a task", verb)
	}
	if _, ok := r.Task(id); !ok {
		return nil, fmt.Errorf("%w %q in run %s (see 'owt run status %s')", ErrNoSuchTask, id, r.Name, r.Name)
	}
	evs, err := cmd(r, id, now)
	if err != nil {
		return nil, err
	}
	evs = append(evs, r.Reopen(verb+" "+id, now)...)
	return append(evs, r.Finish(now)...), nil
}
