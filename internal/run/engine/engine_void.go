package engine

import (
	"time"

	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/run"
)

// voidMessages withdraws what the outbox still holds for tasks that left
// their agent to the user (skipped, cancelled, failed, done): a nudge held
// while the user was on the pane must not be typed after the task is
// over. Cheap: only tasks that still name a message are looked at.
func (e *Engine) voidMessages(name string, now time.Time) error {
	r, err := e.Store.Load(name)
	if err != nil {
		return err
	}
	var voided []string
	for _, t := range r.Tasks {
		if t.Sending == nil || t.State == run.Running || t.State == run.NeedsYou {
			continue
		}
		a := agentOf(r, t, t.Sending.Life)
		m, ok, err := e.box().Lookup(a, t.Sending.Kind, t.Sending.Key)
		if err == nil && ok && m.State == outbox.Queued {
			withdrawn, err := e.box().Withdraw(a, m.Kind, m.Key, "its task is "+string(t.State))
			if err != nil {
				e.logf(r.Repo, t.Name, "run %s: task %s: %v", name, t.ID, err)
				continue
			}
			if !withdrawn {
				// The courier is typing it now: it settles it as it
				// went, and the next tick finds it settled.
				continue
			}
		}
		voided = append(voided, t.ID)
	}
	if len(voided) == 0 {
		return nil
	}
	return e.Store.Update(name, func(cur *run.Run) ([]run.Event, error) {
		for _, id := range voided {
			if t, ok := cur.Task(id); ok && t.State != run.Running && t.State != run.NeedsYou {
				t.Sending, t.Owed = nil, ""
				if t.Why != "" && t.State.Ended() {
					t.Why = ""
				}
				cur.UpdatedAt = now
			}
		}
		return nil, nil
	})
}
