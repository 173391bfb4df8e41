package engine

import (
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
)

// mail is what the outbox holds of a task's message at a judgement.
type mail struct {
	msg     outbox.Message
	sending run.Sending
	added   bool // queued by this judgement
}

func (e *Engine) box() outbox.Box {
	if e.Outbox.Dir == "" {
		return outbox.Default()
	}
	return e.Outbox
}

// agentOf is the outbox of task t's agent in its life life.
func agentOf(r *run.Run, t *run.TaskRun, life string) outbox.Agent {
	return outbox.Agent{Repo: r.Repo, Name: t.Name, Life: life}
}

// mailOf queues the message a verdict owes (a no-op when it is queued
// already) or looks up the one the task waits on; nil when there is none
// or the outbox cannot be read.
func (e *Engine) mailOf(r *run.Run, t *run.TaskRun, rec *state.Record, v run.Verdict, now time.Time) *mail {
	box := e.box()
	switch {
	case v.Action == run.SendMessage && v.Message != nil:
		s := run.SendingOf(r, t, *v.Message)
		s.Life = rec.Life
		m, added, err := box.Enqueue(agentOf(r, t, s.Life), outbox.Message{
			Kind: s.Kind, Key: s.Key, Text: s.Text, From: fmt.Sprintf("run %s, task %s", r.Name, t.ID),
		}, now)
		if err != nil {
			e.logf(r.Repo, t.Name, "run %s: task %s: %v", r.Name, t.ID, err)
			return nil
		}
		return &mail{msg: m, sending: s, added: added}
	case t.Sending != nil && t.Sending.Attempt == t.Attempt:
		m, ok, err := box.Lookup(agentOf(r, t, t.Sending.Life), t.Sending.Kind, t.Sending.Key)
		if err != nil {
			e.logf(r.Repo, t.Name, "run %s: task %s: %v", r.Name, t.ID, err)
		}
		if !ok {
			return nil
		}
		return &mail{msg: m, sending: *t.Sending}
	}
	return nil
}

// applyMail records what the outbox did with the task's message: queued
// (logged once), held while the user is on the pane, delivered (the judge
// remembers it, so it goes once) or undeliverable (the user is needed).
// It reports whether that settles this judgement.
func applyMail(r *run.Run, t *run.TaskRun, jv judged, now time.Time) ([]run.Event, bool) {
	n := jv.mail
	if n == nil {
		return nil, false
	}
	what := messageWhat(n.sending.Kind)
	switch n.msg.State {
	case outbox.Delivered:
		t.Memo.Delivered(n.sending.Message, n.msg.SentAt)
		t.Sending, t.Owed = nil, ""
		if t.State == run.NeedsYou {
			t.Why = ""
		}
		r.SetTask(t, run.Running, now)
		return []run.Event{{At: now, Event: "delivered", Task: t.ID, Detail: what + " reached the agent"}}, true
	case outbox.Undeliverable:
		why := "could not deliver " + what + ": " + n.msg.Why
		t.Sending, t.Owed = nil, ""
		if t.State == run.NeedsYou && t.Why == why {
			return nil, true
		}
		t.Why = why
		r.SetTask(t, run.NeedsYou, now)
		return []run.Event{
			{At: now, Event: "undeliverable", Task: t.ID, Detail: what + ": " + n.msg.Why},
			{At: now, Event: "needs_you", Task: t.ID, Detail: why},
		}, true
	}
	// Still queued.
	if n.added || t.Sending == nil || t.Sending.Key != n.sending.Key {
		s := n.sending
		ev := jv.v.Evidence
		t.Sending, t.Owed, t.Why, t.Evidence = &s, s.Kind, jv.v.Why, &ev
		r.SetTask(t, run.Running, now)
		return []run.Event{{At: now, Event: "queued", Task: t.ID, Detail: fmt.Sprintf("%s: %s for the agent", jv.v.Why, what)}}, true
	}
	if held := heldWhy(what, n.msg.Why); held != "" && t.Why != held {
		t.Why = held
		return []run.Event{{At: now, Event: "held", Task: t.ID, Detail: held}}, true
	}
	return nil, jv.v.Action == run.SendMessage
}

func heldWhy(what, why string) string {
	if why == "" {
		return ""
	}
	return what + " held: " + why
}

func messageWhat(kind string) string {
	if w, ok := map[string]string{
		run.MsgNudge: "a nudge", run.MsgCommit: "a request to commit", run.MsgChecks: "the failing checks",
	}[kind]; ok {
		return w
	}
	return kind
}

// userOnAgent reports whether a user's client is on the pane of the
// task's agent (then owt lands nothing for it, as it sends it nothing).
func (e *Engine) userOnAgent(r *run.Run, name string) bool {
	f, err := state.ForRepo(r.Repo).Peek()
	if err != nil || f.Records[name] == nil {
		return false
	}
	return e.userOnPane(f.Records[name].Pane) // the monitor's snapshot knows: no tmux call
}

// landHeldWhy is why a done task waits to land.
const landHeldWhy = "landing held: " + outbox.HeldByUser

// landingHeld reports whether the done task t must wait to land because
// the user is on its agent's pane, and says so once on the task.
func (e *Engine) landingHeld(r *run.Run, t *run.TaskRun, now time.Time) bool {
	on := e.userOnAgent(r, t.Name)
	if on == (t.Why == landHeldWhy) {
		return on
	}
	err := e.Store.Update(r.Name, func(cur *run.Run) ([]run.Event, error) {
		ct, ok := cur.Task(t.ID)
		if !ok || ct.State != run.Done || ct.Name != t.Name {
			return nil, nil
		}
		if !on {
			ct.Why = ""
			return []run.Event{{At: now, Event: "unheld", Task: ct.ID, Detail: "the user left its pane"}}, nil
		}
		ct.Why, cur.UpdatedAt = landHeldWhy, now
		return []run.Event{{At: now, Event: "held", Task: ct.ID, Detail: landHeldWhy}}, nil
	})
	if err != nil {
		e.logf(r.Repo, "", "run %s: %v", r.Name, err)
	}
	return on
}
