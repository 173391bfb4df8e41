package run

import (
	"errors"
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// RestartWhy is why a run waits after its tmux server restarted.
const RestartWhy = "the tmux server restarted: owt run resume goes on"

// recoverRun puts right what a restart left, before the run is judged or
// anything starts: a run of another tmux server run waits for owt run
// resume (held is true: nothing else happens this tick), tasks left
// starting by a monitor that died are settled, and after owt run resume
// lost sessions get their agents back.
func (e *Engine) recoverRun(r *Run, now time.Time) (held bool, err error) {
	if held, err := e.checkServer(r, now); held || err != nil {
		return held, err
	}
	if err := e.settleStarting(r, now); err != nil {
		return false, err
	}
	if r.Recover {
		return false, e.restoreSessions(r, now)
	}
	return false, nil
}

// checkServer compares the run's tmux server with the engine's. A run
// that names none is adopted; a run of another run of the server (it
// restarted: sessions and pane ids are not the same any more) is paused
// with the reason, once, and held.
func (e *Engine) checkServer(r *Run, now time.Time) (bool, error) {
	switch {
	case e.Server == "" || r.Server == e.Server:
		return false, nil
	case r.Server == "":
		return false, e.Store.Update(r.Name, func(cur *Run) ([]Event, error) {
			if cur.Server != "" {
				return nil, nil
			}
			cur.Server, cur.UpdatedAt = e.Server, now
			r.Server = e.Server
			return []Event{{At: now, Event: "server", Detail: "driven by tmux server " + e.Server}}, nil
		})
	}
	if r.State == Paused && r.Why == RestartWhy {
		return true, nil
	}
	return true, e.Store.Update(r.Name, func(cur *Run) ([]Event, error) { return cur.pauseForRestart(e.Server, now), nil })
}

// pauseForRestart pauses a run registered under another run of its tmux
// server than server (it restarted), once, with the reason. An ended
// run, or one that names no server yet, is left as it is.
func (r *Run) pauseForRestart(server string, now time.Time) []Event {
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
	err := s.Update(name, func(r *Run) ([]Event, error) { return r.pauseForRestart(server, now), nil })
	if err != nil {
		return nil, err
	}
	return s.Load(name)
}

// settleStarting resolves the tasks a monitor left starting when it died
// in the middle of a start: ticks are not concurrent, so no start of this
// engine is under way now. A worktree fully made means running; none, or
// an interrupted create owt undid, means pending again, without counting
// the attempt that never ran.
func (e *Engine) settleStarting(r *Run, now time.Time) error {
	var w *workspace.Workspace
	for _, t := range r.Tasks {
		if t.State != Starting {
			continue
		}
		if w == nil {
			var err error
			if w, err = workspace.Open(r.Repo, e.Tmux); err != nil {
				return err
			}
		}
		name := t.Name
		if name == "" {
			name = r.Name + "-" + t.ID // the name create gives it
		}
		out := settleOne(w, t, name)
		err := e.Store.Update(r.Name, func(cur *Run) ([]Event, error) {
			ct, ok := cur.Task(t.ID)
			if !ok || ct.State != Starting {
				return nil, nil
			}
			return cur.applySettled(ct, out, now), nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// settled is what became of a cut-off start.
type settled struct {
	rec *state.Record // the whole record: the task runs
	why string        // the remains need the user
}

func settleOne(w *workspace.Workspace, t *TaskRun, name string) settled {
	rec, err := w.Get(name)
	if errors.Is(err, workspace.ErrUnknownName) {
		return settled{}
	}
	if err != nil {
		return settled{why: "its start was cut off: " + err.Error()}
	}
	if lifecycle.CreateStateOf(rec) != lifecycle.Created {
		rec, err = lifecycle.Of(w).SettleInterruptedCreate(name)
		if err != nil {
			return settled{why: "its start was cut off: " + err.Error()}
		}
		return settled{rec: rec}
	}
	if t.Name != "" && rec.SessionID == "" {
		return settled{} // a restart cut off before its session started: start it again
	}
	return settled{rec: rec}
}

func (r *Run) applySettled(t *TaskRun, s settled, now time.Time) []Event {
	switch {
	case s.why != "":
		t.Why = s.why
		r.setTask(t, NeedsYou, now)
		return []Event{{At: now, Event: "needs_you", Task: t.ID, Detail: s.why}}
	case s.rec == nil:
		if t.Attempt > 0 {
			t.Attempt-- // the attempt never ran
		}
		r.setTask(t, Pending, now)
		return []Event{{At: now, Event: "pending", Task: t.ID, Detail: "its start was cut off (the monitor stopped); it starts again"}}
	}
	t.Name, t.Branch = s.rec.Name, s.rec.Branch
	r.setTask(t, Running, now)
	return []Event{{At: now, Event: "started", Task: t.ID,
		Detail: fmt.Sprintf("%s on %s (its start finished before the monitor stopped)", s.rec.Name, s.rec.Branch)}}
}

// restoreSessions is the first look after owt run resume adopted a new
// tmux server: each running task whose session was lost gets a session
// and its agent back in its worktree, told what happened. A live session
// is kept; an agent that exited by itself (its exit code is known), or
// said owt done, is left to the judge. One that is "exited" without a code
// went with its session.
func (e *Engine) restoreSessions(r *Run, now time.Time) error {
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil {
		return err
	}
	loc, err := workspace.ListLocator(e.Tmux)
	if err != nil {
		return err
	}
	type restored struct {
		id, name string
		err      error
	}
	var done []restored
	for _, t := range r.Tasks {
		if (t.State != Running && t.State != NeedsYou) || t.Name == "" || outOfTime(t) {
			continue // a timed-out task's agent comes back with owt run retry
		}
		rec, err := w.Get(t.Name)
		blocked := err == nil && rec.Done != nil && rec.Done.Blocked != ""
		if err != nil || (rec.Done != nil && !blocked) || loc.Locate(rec).Place != workspace.Gone {
			continue // a finished or failed agent is judged; a blocked one needs a pane to be answered in
		}
		if rec.Status == state.Exited && rec.ExitCode != nil {
			continue // it exited by itself (the runner saw its code): the judge decides
		}
		pt, ok := r.Plan.TaskByID(t.ID)
		if !ok {
			continue
		}
		prompt := ResumePrompt(pt.Task)
		if blocked {
			prompt += "\n\nBefore the restart you asked the user (owt done --blocked): " + rec.Done.Blocked + "\nWait for their answer here."
		}
		_, err = lifecycle.Of(w).Restart(t.Name, prompt)
		done = append(done, restored{id: t.ID, name: t.Name, err: err})
	}
	now = time.Now()
	return e.Store.Update(r.Name, func(cur *Run) ([]Event, error) {
		cur.Recover, cur.UpdatedAt = false, now
		evs := []Event{{At: now, Event: "recovered", Detail: fmt.Sprintf("%d lost session(s) given their agents back", len(done))}}
		for _, d := range done {
			t, ok := cur.Task(d.id)
			if !ok || t.Name != d.name {
				continue
			}
			if d.err != nil {
				t.Why = "its session was lost with the tmux server and could not be restarted: " + d.err.Error()
				cur.setTask(t, NeedsYou, now)
				evs = append(evs, Event{At: now, Event: "needs_you", Task: d.id, Detail: t.Why})
				continue
			}
			t.Why, t.Clock = "", ActiveClock{Counted: t.Clock.Counted}
			cur.setTask(t, Running, now)
			evs = append(evs, Event{At: now, Event: "restored", Task: d.id, Detail: "a new session and agent in worktree " + d.name})
		}
		return evs, nil
	})
}
