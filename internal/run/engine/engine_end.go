package engine

import (
	"time"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
)

// tellNeeds tells the user, once per task, state and why, about each task
// that needs them. An agent waiting at its own prompt is told with
// AgentWaiting set: the monitor drops it where the status notice says it.
func (e *Engine) tellNeeds(name string) error {
	if e.Notify == nil {
		return nil
	}
	r, err := e.Store.Load(name)
	if err != nil {
		return err
	}
	var due []*run.TaskRun
	for _, t := range r.Tasks {
		if run.NeedsUser(t) && !toldOf(r, t) {
			due = append(due, t)
		}
	}
	if len(due) == 0 {
		return nil
	}
	recs := map[string]*state.Record{}
	if f, err := state.ForRepo(r.Repo).Peek(); err == nil {
		recs = f.Records
	}
	type telling struct {
		since time.Time
		text  string
	}
	told := map[string]telling{}
	for _, t := range due {
		text := run.NeedsText(r, t)
		told[t.ID] = telling{t.Since, text}
		rec := recs[t.Name]
		waiting := rec != nil && rec.Status == state.Waiting && t.State == run.NeedsYou
		if rec == nil {
			rec = &state.Record{Name: r.Name + "-" + t.ID, Repo: r.Repo}
		}
		e.Notify(rec, run.Notice{Event: noticeEvent(t), Run: r.Name, Task: t.ID, Text: text, AgentWaiting: waiting})
	}
	return e.Store.Update(name, func(cur *run.Run) ([]run.Event, error) {
		for id, was := range told {
			if t, ok := cur.Task(id); ok && t.Since.Equal(was.since) && run.NeedsText(cur, t) == was.text {
				// The clock, not the tick's now: this tick's earlier writes
				// may have set UpdatedAt to now, and Update writes a change.
				t.Told, t.ToldText, cur.UpdatedAt = was.since, was.text, time.Now()
			}
		}
		return nil, nil
	})
}

// toldOf reports whether the user was told of t as it is now: its state
// since then, and the same notice (a task told before ToldText was kept
// counts as told).
func toldOf(r *run.Run, t *run.TaskRun) bool {
	return t.Told.Equal(t.Since) && (t.ToldText == "" || t.ToldText == run.NeedsText(r, t))
}

// noticeEvent is the kind of notice a task that needs the user gets.
func noticeEvent(t *run.TaskRun) string {
	switch t.State {
	case run.Failed:
		return "run_task_failed"
	case run.Blocked:
		return "run_task_blocked"
	}
	return "run_task_needs_you"
}
