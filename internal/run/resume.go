package run

import (
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/state"
)

// RestartWhy is why a run waits after its tmux server restarted.
const RestartWhy = "the tmux server restarted: owt run resume goes on"

// PauseForRestart pauses a run registered under another run of its tmux
// server than server (it restarted), once, with the reason. An ended
// run, or one that names no server yet, is left as it is.
func (r *Run) PauseForRestart(server string, now time.Time) []Event {
	if r.Server == "" || r.Server == server || r.State == Finished || r.State == RunFailed || r.State == Paused && r.Why == RestartWhy {
		return nil
	}
	was := r.State
	r.State, r.Why, r.UpdatedAt = Paused, RestartWhy, now
	return []Event{{At: now, Event: "paused", Detail: fmt.Sprintf("%s → paused: %s (was server %s, now %s)", was, RestartWhy, r.Server, server)}}
}

// NoteRestart records that the tmux server of the run called name is now
// server (its identity, tmux.ServerIdentity), when that is another run of
// it than the run was registered under: the run pauses as its engine
// would pause it, so a run whose server restarted with no monitor on it
// does not read as active. It returns the run as it is now.
func (s Store) NoteRestart(name, server string, now time.Time) (*Run, error) {
	err := s.Update(name, func(r *Run) ([]Event, error) { return r.PauseForRestart(server, now), nil })
	if err != nil {
		return nil, err
	}
	return s.Load(name)
}

// Settled is what became of a cut-off start.
type Settled struct {
	Rec *state.Record // the whole record: the task runs
	Why string        // the remains need the user
}

func (r *Run) ApplySettled(t *TaskRun, s Settled, now time.Time) []Event {
	switch {
	case s.Why != "":
		t.Why = s.Why
		r.SetTask(t, NeedsYou, now)
		return []Event{{At: now, Event: "needs_you", Task: t.ID, Detail: s.Why}}
	case s.Rec == nil:
		if t.Attempt > 0 {
			t.Attempt-- // the attempt never ran
		}
		r.SetTask(t, Pending, now)
		return []Event{{At: now, Event: "pending", Task: t.ID, Detail: "its start was cut off (the monitor stopped); it starts again"}}
	}
	t.Name, t.Branch = s.Rec.Name, s.Rec.Branch
	r.SetTask(t, Running, now)
	return []Event{{At: now, Event: "started", Task: t.ID,
		Detail: fmt.Sprintf("%s on %s (its start finished before the monitor stopped)", s.Rec.Name, s.Rec.Branch)}}
}
