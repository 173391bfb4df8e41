package run

import (
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// A run ends when no task of it can go on by itself: "finished" when
// every task ended well (done, landed, skipped, or cancelled by the
// user, with what depends on a cancelled task not run), "failed" when
// some failed or are blocked otherwise, so a run that got
// nothing done never reads like success. A failed run stays on the
// status bar with ▲ until the user acts (retry, skip or cancel reopen or
// finish it; forget drops it), and each task that needs the user is told
// once, as reactions tell.

// end sets the state a run that is over ends in, and logs it.
func (r *Run) end(now time.Time) []Event {
	to, why := r.endState()
	if r.State == to && r.Why == why {
		return nil
	}
	r.State, r.Why, r.UpdatedAt = to, why, now
	detail := fmt.Sprintf("%d/%d done", r.View().Finished, len(r.Tasks))
	if to == RunFailed {
		return []Event{{At: now, Event: "failed", Detail: detail + "; " + why}}
	}
	return []Event{{At: now, Event: "finished", Detail: detail}}
}

// endState is finished, or failed with what holds it: the failed and the
// blocked tasks.
func (r *Run) endState() (RunState, string) {
	var held, notRun []string
	for _, t := range r.Tasks {
		switch {
		case t.State == Blocked && len(t.BlockedBy) > 0 && r.heldByCancel(t):
			notRun = append(notRun, t.ID) // the user's own choice: nothing failed
		case t.State == Failed:
			held = append(held, t.ID+" failed")
		case t.State == Blocked && len(t.BlockedBy) > 0:
			held = append(held, t.ID+" blocked by "+strings.Join(t.BlockedBy, ", "))
		case t.State == Blocked:
			held = append(held, t.ID+" blocked: its parents conflict")
		}
	}
	switch {
	case len(held) > 0:
		return RunFailed, strings.Join(held, "; ") + ": 'owt run retry' or 'owt run skip' goes on"
	case len(notRun) > 0:
		return Finished, "not run: " + strings.Join(notRun, ", ") + ", which wait on a cancelled task; 'owt run retry' a cancelled task goes on"
	}
	return Finished, ""
}

// heldByCancel reports whether blocked task t waits only on tasks the
// user cancelled (directly, or through tasks blocked so in their turn).
func (r *Run) heldByCancel(t *TaskRun) bool {
	for _, id := range t.BlockedBy {
		p, ok := r.Task(id)
		if !ok {
			return false
		}
		if p.State != Cancelled && (p.State != Blocked || len(p.BlockedBy) == 0 || !r.heldByCancel(p)) {
			return false
		}
	}
	return len(t.BlockedBy) > 0
}

// Reopen makes an ended run active again once one of its tasks can go on
// (a retry, a skip that released a dependent, a parent's conflict
// resolved); cause says what did it.
func (r *Run) Reopen(cause string, now time.Time) []Event {
	if (r.State != Finished && r.State != RunFailed) || r.Over() {
		return nil
	}
	r.State, r.Why, r.UpdatedAt = Active, "", now
	return []Event{{At: now, Event: "reopened", Detail: cause}}
}

// NeedingYou counts the tasks that wait for the user: asking, failed,
// or blocked by their parents' conflict (a task blocked by a dependency
// waits on that dependency, which is counted).
func (r *Run) NeedingYou() int {
	n := 0
	for _, t := range r.Tasks {
		if NeedsUser(t) {
			n++
		}
	}
	return n
}

func NeedsUser(t *TaskRun) bool {
	return t.State == NeedsYou || t.State == Failed || (t.State == Blocked && len(t.BlockedBy) == 0)
}

// Notice is what the engine tells the user about a task that needs them.
type Notice struct {
	// Event is the kind: run_task_failed, run_task_blocked or
	// run_task_needs_you ([notify] command's OWT_EVENT).
	Event     string
	Run, Task string
	Text      string
	// AgentWaiting: the task's agent waits at its own prompt, which its
	// status notice says where [notify] on lists waiting.
	AgentWaiting bool
}

// NeedsText is the notice of a task that needs the user.
func NeedsText(r *Run, t *TaskRun) string {
	what := "needs you"
	why := t.Why
	switch {
	case t.State == Failed:
		what = "failed"
		if why == "" && t.Failure != nil {
			why = t.Failure.Class + ": " + t.Failure.Error.Block()
		}
	case t.State == Blocked:
		what = "is blocked"
	}
	text := fmt.Sprintf("owt: run %s: task %s %s", r.Name, t.ID, what)
	if why = firstLineOf(why); why != "" {
		text += " (" + why + ")"
	}
	return text + "; 'owt run status " + r.Name + "'"
}

// firstLineOf is s's first line, safe to draw (text.CleanLine: its
// controls dropped), cut to 120 characters.
func firstLineOf(s string) string {
	s, _, _ = strings.Cut(untrusted.Clean(s), "\n")
	s = untrusted.CleanLine(s)
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}
