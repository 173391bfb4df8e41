package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// AgentPace is what the engine sees of a running task's agent for its
// clock: its status, whether the user is on its pane, and when it last
// showed life (a hook, a status change, output on its screen).
type AgentPace struct {
	Status       state.Status
	UserOnPane   bool
	LastActivity time.Time
	// Unreachable names the host of an agent that cannot be reached now:
	// nothing is known of it, so its clock stops.
	Unreachable string
	// Removed names the host of an agent that is no longer configured
	// (owt host remove): owt no longer follows it, so its clock stops.
	Removed string
}

func (r *Run) PaceAll(paces map[string]AgentPace, jitter Jitter, now time.Time) []Event {
	var evs []Event
	for _, t := range r.Tasks {
		if a, ok := paces[t.ID]; ok {
			evs = append(evs, r.PaceTask(t, a, jitter, now)...)
		}
	}
	return evs
}

// PaceTask is one look at a running task's clock. Its active time runs
// while the agent starts, works or is idle, and is held while it waits
// for the user, the user is on its pane, or the task needs the user. An
// attempt whose active time reaches its timeout, or whose agent works
// with no sign of life for the plan's stall, is out of time (timeUp).
func (r *Run) PaceTask(t *TaskRun, a AgentPace, jitter Jitter, now time.Time) []Event {
	if (t.State != Running && t.State != NeedsYou) || OutOfTime(t) {
		return nil
	}
	var evs []Event
	why := holdReason(t, a)
	switch running := !t.Clock.Since.IsZero(); {
	case why == "" && !running:
		t.Clock.Run(now)
		evs = append(evs, Event{At: now, Event: "clock", Task: t.ID,
			Detail: fmt.Sprintf("active time runs (%s so far)", shortDuration(t.Clock.Active(now)))})
	case why != "" && running:
		t.Clock.Hold(now)
		evs = append(evs, Event{At: now, Event: "clock", Task: t.ID,
			Detail: fmt.Sprintf("active time held at %s: %s", shortDuration(t.Clock.Active(now)), why)})
	}
	if len(evs) > 0 {
		r.UpdatedAt = now
	}
	if t.State != Running {
		return evs
	}
	pt, ok := r.Plan.TaskByID(t.ID)
	if !ok {
		return evs
	}
	if limit := r.Plan.TimeoutOf(pt); t.Clock.TimedOut(limit, now) {
		f := Failure{Class: FailTimeout, Error: untrusted.From("timed out after " + shortDuration(limit) + " of active time")}
		return append(evs, r.timeUp(t, f, jitter, now)...)
	}
	stall := time.Duration(r.Plan.Stall)
	if quiet := now.Sub(LatestOf(a.LastActivity, t.Since)); stall > 0 && a.Status == state.Working && quiet >= stall {
		f := Failure{Class: FailStall, Error: untrusted.From("stalled: working with no hook or screen change for " + shortDuration(stall))}
		return append(evs, r.timeUp(t, f, jitter, now)...)
	}
	return evs
}

// holdReason says why the task's clock must not run now; "" when it runs.
func holdReason(t *TaskRun, a AgentPace) string {
	switch {
	case t.State != Running:
		return "the task needs you"
	case a.Removed != "":
		return "its host " + a.Removed + " is no longer configured"
	case a.Unreachable != "":
		return "its host " + a.Unreachable + " is unreachable"
	case a.UserOnPane:
		return "you are on its pane"
	case a.Status == state.Waiting:
		return "the agent waits for you"
	case a.Status == state.Limited:
		return "the agent hit a usage limit"
	case a.Status == state.Exited:
		return "the agent exited"
	}
	return ""
}

// timeUp ends an attempt that timed out or stalled. By default the agent
// is left running and the user decides (NEEDS YOU); with on_timeout =
// "retry" the attempt fails like any other and is retried after the
// backoff.
func (r *Run) timeUp(t *TaskRun, f Failure, jitter Jitter, now time.Time) []Event {
	if r.Plan.OnTimeout == OnTimeoutRetry {
		return r.FailAttempt(t, f, nil, jitter, now)
	}
	f.At = now
	t.Failure = &f
	t.Why = fmt.Sprintf("%s; the agent is left running: 'owt run retry %s %s' restarts it, "+
		"'owt run skip %s %s' lets its dependents go on without it, 'owt run cancel %s %s' gives it up",
		f.Error.Block(), r.Name, t.ID, r.Name, t.ID, r.Name, t.ID)
	r.SetTask(t, NeedsYou, now)
	return []Event{{At: now, Event: "needs_you", Task: t.ID, Detail: t.Why}}
}

// OutOfTime reports whether t timed out or stalled and waits for the
// user: only its agent finishing on evidence moves it by itself.
func OutOfTime(t *TaskRun) bool {
	return t.State == NeedsYou && t.Failure != nil && (t.Failure.Class == FailTimeout || t.Failure.Class == FailStall)
}

func LatestOf(ts ...time.Time) time.Time {
	var out time.Time
	for _, t := range ts {
		if t.After(out) {
			out = t
		}
	}
	return out
}

// shortDuration writes 45m for 45m0s and 1.5s for 1.5s, to the tenth of
// a second.
func shortDuration(d time.Duration) string {
	s := d.Round(100 * time.Millisecond).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
