package engine

import (
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// A usage limit holds a tool: while an agent of the repository is
// limited on it, the engine starts no task on that tool (a new agent
// would hit the same limit at once), until the reset the tool named, or
// until the agent goes on when it named none. Once the reset has passed,
// a run's limited agent gets one nudge to go on.

// NudgeText is what a limited agent is told once its limit has reset.
const NudgeText = "The usage limit has reset: go on with your task where you stopped."

// limitHold is why a tool takes no new task now.
type limitHold struct {
	agent string
	limit *state.Limit
}

// limitedTools are the tools of repo's agents that a usage limit stops
// now, each with the agent that hit it (the latest reset wins).
func limitedTools(recs map[string]*state.Record, now time.Time) map[string]limitHold {
	var out map[string]limitHold
	for _, rec := range recs {
		if rec.Status != state.Limited || rec.Tool == "" {
			continue
		}
		if rec.Limit.HasReset(now) {
			continue // reset: the tool may take work again
		}
		if out == nil {
			out = map[string]limitHold{}
		}
		cur, ok := out[rec.Tool]
		if !ok || cur.limit != nil && rec.Limit != nil && rec.Limit.Reset.After(cur.limit.Reset) {
			out[rec.Tool] = limitHold{agent: rec.Name, limit: rec.Limit}
		}
	}
	return out
}

// heldByLimits returns the ready tasks of r whose tool a usage limit
// holds, each with why; none (and no config read) when no agent of the
// repository is limited.
func (e *Engine) heldByLimits(r *run.Run, ready []string, now time.Time) map[string]string {
	f, err := state.ForRepo(r.Repo).Peek()
	if err != nil {
		return nil // the locked pass and the judge say what is wrong
	}
	limited := limitedTools(f.Records, now)
	if len(limited) == 0 {
		return nil
	}
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil {
		return nil
	}
	held := map[string]string{}
	for _, id := range ready {
		pt, ok := r.Plan.TaskByID(id)
		if !ok {
			continue
		}
		tool := r.Plan.ToolOf(pt)
		if tool == "" {
			tool = w.Config.Agent.Tool
		}
		if prof, err := agent.Resolve(w.Tools, tool); err == nil {
			tool = prof.Name
		}
		if h, ok := limited[tool]; ok {
			held[id] = fmt.Sprintf("%s hit a %s: no new %s task until then", h.agent, h.limit.Why(now), tool)
		}
	}
	return held
}

// holdForLimit keeps a ready task waiting for a usage limit, saying why
// once (an event when the reason is new).
func holdForLimit(t *run.TaskRun, why string, now time.Time) []run.Event {
	if t.Why == why {
		return nil
	}
	t.Why = why
	return []run.Event{{At: now, Event: "held", Task: t.ID, Detail: why}}
}

// nudgeLimited tells each running task's limited agent, once its limit
// has reset, to go on; a limit with no reset time is the user's to lift.
func (e *Engine) nudgeLimited(r *run.Run, now time.Time) {
	var recs map[string]*state.Record
	for _, t := range r.Tasks {
		if t.State != run.Running || t.Name == "" {
			continue
		}
		if recs == nil {
			f, err := state.ForRepo(r.Repo).Peek()
			if err != nil {
				return
			}
			recs = f.Records
		}
		rec := recs[t.Name]
		if rec == nil || rec.Status != state.Limited || !rec.Limit.HasReset(now) || rec.Limit.Nudged || e.userOnPane(rec.Pane) {
			continue // (the user on its pane decides; the nudge waits for them to leave)
		}
		e.nudge(r, t, rec, now)
	}
}

// nudge types NudgeText into the limited agent, and marks its limit
// nudged first, so a crash between the two never nudges twice.
func (e *Engine) nudge(r *run.Run, t *run.TaskRun, rec *state.Record, now time.Time) {
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil {
		e.logf(r.Repo, rec.Name, "run %s: nudge %s: %v", r.Name, rec.Name, err)
		return
	}
	marked := false
	err = w.Store.Update(func(f *state.File) error {
		cur := f.Records[rec.Name]
		if cur == nil || cur.Status != state.Limited || cur.Limit == nil || cur.Limit.Nudged {
			return state.ErrNoChange
		}
		cur.Limit.Nudged, marked = true, true
		return nil
	})
	if err != nil || !marked {
		if err != nil {
			e.logf(r.Repo, rec.Name, "run %s: nudge %s: %v", r.Name, rec.Name, err)
		}
		return
	}
	detail := "its usage limit reset: told it to go on"
	// Only into a screen at its prompt: typed into a dialog it would
	// answer it.
	if err := send.To(w, rec, untrusted.From(NudgeText), send.Options{OnlyIdle: true}); err != nil {
		detail = "its usage limit reset, but telling it to go on failed: " + err.Error()
	}
	e.logf(r.Repo, rec.Name, "run %s: %s: %s", r.Name, rec.Name, detail)
	_ = e.Store.Update(r.Name, func(*run.Run) ([]run.Event, error) {
		return []run.Event{{At: now, Event: "nudged", Task: t.ID, Detail: detail}}, nil
	})
}
