package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// recoverRun puts right what a restart left, before the run is judged or
// anything starts: a run of another tmux server run waits for owt run
// resume (held is true: nothing else happens this tick), tasks left
// starting by a monitor that died are settled, and after owt run resume
// lost sessions get their agents back.
func (e *Engine) recoverRun(r *run.Run, now time.Time) (held bool, err error) {
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
func (e *Engine) checkServer(r *run.Run, now time.Time) (bool, error) {
	switch {
	case e.Server == "" || r.Server == e.Server:
		return false, nil
	case r.Server == "":
		return false, e.Store.Update(r.Name, func(cur *run.Run) ([]run.Event, error) {
			if cur.Server != "" {
				return nil, nil
			}
			cur.Server, cur.UpdatedAt = e.Server, now
			r.Server = e.Server
			return []run.Event{{At: now, Event: "server", Detail: "driven by tmux server " + e.Server}}, nil
		})
	}
	if r.State == run.Paused && r.Why == run.RestartWhy {
		return true, nil
	}
	return true, e.Store.Update(r.Name, func(cur *run.Run) ([]run.Event, error) { return cur.PauseForRestart(e.Server, now), nil })
}

// settleStarting resolves the tasks a monitor left starting when it died
// in the middle of a start: ticks are not concurrent, so no local start
// of this engine is under way now; a start on a host runs in the
// background (startRemote) and is skipped while it does. A worktree fully
// made means running; none, or an interrupted create owt undid, means
// pending again, without counting the attempt that never ran. A start on
// a host that was cut off needs the user: its agent there may exist.
func (e *Engine) settleStarting(r *run.Run, now time.Time) error {
	var w *workspace.Workspace
	for _, t := range r.Tasks {
		if t.State != run.Starting || e.starting(r.Name, t.ID) {
			continue
		}
		if e.onHost(r, t.ID) {
			name := t.Name
			if name == "" {
				name = r.Name + "-" + t.ID
			}
			out := run.Settled{Why: fmt.Sprintf("its start on a host was cut off (the monitor stopped): its agent %s may be there (owt list --all); "+
				"delete it there if so, then owt run retry the task", name)}
			if err := e.Store.Update(r.Name, func(cur *run.Run) ([]run.Event, error) {
				ct, ok := cur.Task(t.ID)
				if !ok || ct.State != run.Starting {
					return nil, nil
				}
				return cur.ApplySettled(ct, out, now), nil
			}); err != nil {
				return err
			}
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
		err := e.Store.Update(r.Name, func(cur *run.Run) ([]run.Event, error) {
			ct, ok := cur.Task(t.ID)
			if !ok || ct.State != run.Starting {
				return nil, nil
			}
			return cur.ApplySettled(ct, out, now), nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func settleOne(w *workspace.Workspace, t *run.TaskRun, name string) run.Settled {
	rec, err := w.Get(name)
	if errors.Is(err, state.ErrUnknownName) {
		return run.Settled{}
	}
	if err != nil {
		return run.Settled{Why: "its start was cut off: " + err.Error()}
	}
	if lifecycle.CreateStateOf(rec) != lifecycle.Created {
		rec, err = lifecycle.Of(w).SettleInterruptedCreate(name)
		if err != nil {
			return run.Settled{Why: "its start was cut off: " + err.Error()}
		}
		return run.Settled{Rec: rec}
	}
	if t.Name != "" && rec.SessionID == "" {
		return run.Settled{} // a restart cut off before its session started: start it again
	}
	return run.Settled{Rec: rec}
}

// restoreSessions is the first look after owt run resume adopted a new
// tmux server: each running task whose session was lost gets a session
// and its agent back in its worktree, told what happened. A live session
// is kept; an agent that exited by itself (its exit code is known), or
// said owt done, is left to the judge. One that is "exited" without a code
// went with its session.
func (e *Engine) restoreSessions(r *run.Run, now time.Time) error {
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
		if (t.State != run.Running && t.State != run.NeedsYou) || t.Name == "" || run.OutOfTime(t) {
			continue // a timed-out task's agent comes back with owt run retry
		}
		rec, err := w.Get(t.Name)
		blocked := err == nil && rec.Done != nil && !rec.Done.Blocked.Empty()
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
		// Its own conversation goes on (the tool's resume option); the
		// task, told when it cannot, says how to report back.
		task := pt.Task + "\n\n" + run.DoneInstruction
		if blocked {
			task += "\n\nBefore the restart you asked the user (owt done --blocked): " + rec.Done.Blocked.Typed() + "\nWait for their answer here."
		}
		_, err = lifecycle.Of(w).ResumeAgent(t.Name, task)
		if errors.Is(err, lifecycle.ErrNotLost) {
			err = nil // brought back meanwhile (owt restore): it runs
		}
		done = append(done, restored{id: t.ID, name: t.Name, err: err})
	}
	now = time.Now()
	return e.Store.Update(r.Name, func(cur *run.Run) ([]run.Event, error) {
		cur.Recover, cur.UpdatedAt = false, now
		evs := []run.Event{{At: now, Event: "recovered", Detail: fmt.Sprintf("%d lost session(s) given their agents back", len(done))}}
		for _, d := range done {
			t, ok := cur.Task(d.id)
			if !ok || t.Name != d.name {
				continue
			}
			if d.err != nil {
				t.Why = "its session was lost with the tmux server and could not be restarted: " + d.err.Error()
				cur.SetTask(t, run.NeedsYou, now)
				evs = append(evs, run.Event{At: now, Event: "needs_you", Task: d.id, Detail: t.Why})
				continue
			}
			t.Why, t.Clock = "", run.ActiveClock{Counted: t.Clock.Counted}
			cur.SetTask(t, run.Running, now)
			evs = append(evs, run.Event{At: now, Event: "restored", Task: d.id, Detail: "a new session in worktree " + d.name + ", its agent resumed on its own conversation where its tool can"})
		}
		return evs, nil
	})
}
