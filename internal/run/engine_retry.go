package run

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// TailLines is how much of a failed attempt's pane its retry is shown.
const TailLines = 30

// failAttempt records a failed attempt through Fail: backoff while
// attempts are left (the retry keeps the worktree), else failed with its
// dependents blocked. The evidence of the last judgement is kept.
func (r *Run) failAttempt(t *TaskRun, f Failure, ev *Evidence, jitter Jitter, now time.Time) []Event {
	if jitter == nil {
		jitter = rand.Float64
	}
	evs, err := r.Fail(t.ID, f, jitter, now)
	if err != nil {
		return nil // the task ended meanwhile (owt run skip, cancel)
	}
	if ev != nil {
		t.Evidence = ev
	}
	t.Why, t.Owed = "", ""
	return evs
}

// jitter is the engine's source of backoff jitter: math/rand unless a
// test gave one.
func (e *Engine) jitter() Jitter {
	if e.Jitter != nil {
		return e.Jitter
	}
	return rand.Float64
}

// retryHeldWhy is what a task whose retry waits for the user to leave
// its pane says.
const retryHeldWhy = "its retry is held while you are on its pane: the agent restarts when you leave its pane"

// retriesHeld are the tasks of ids about to be retried whose agent's pane
// has the user's client on it: owt restarts no agent in front of the
// user (as it sends nothing then), so they wait until the user leaves.
// The monitor's snapshot knows: no tmux call.
func (e *Engine) retriesHeld(r *Run, ids []string) map[string]bool {
	held := map[string]bool{}
	var recs map[string]*state.Record
	for _, id := range ids {
		t, ok := r.Task(id)
		if !ok || t.State != Backoff || t.Name == "" || e.UserOnPane == nil {
			continue
		}
		if recs == nil {
			f, err := state.ForRepo(r.Repo).Peek()
			if err != nil {
				e.logf("run %s: read worktree state: %v", r.Name, err)
				return held
			}
			recs = f.Records
		}
		if rec := recs[t.Name]; rec != nil && e.userOnPane(rec.Pane) {
			held[id] = true
		}
	}
	return held
}

// holdRetry keeps task t in backoff while the user is on its pane,
// saying so once.
func holdRetry(t *TaskRun, now time.Time) []Event {
	if t.Why == retryHeldWhy {
		return nil
	}
	t.Why = retryHeldWhy
	return []Event{{At: now, Event: "held", Task: t.ID, Detail: "retry held: the user is on its pane; it restarts when the user leaves"}}
}

// attemptStart is what startReady knows of a task it marked starting:
// its worktree from an earlier attempt and why that attempt ended.
type attemptStart struct {
	id      string
	name    string   // the worktree of an earlier attempt, "" for none
	failure *Failure // why the last attempt failed; nil for a first start or a user's retry of a stuck task
	attempt int
}

// launch starts an attempt: in the worktree an earlier attempt left, the
// agent restarts there with what went wrong (its commits and files are
// kept); without one, a fresh Create.
func (e *Engine) launch(r *Run, a attemptStart) (*state.Record, error) {
	if a.name == "" {
		return e.create(r, a.id)
	}
	w, err := workspace.Open(r.Repo, e.Tmux)
	if err != nil {
		return nil, err
	}
	rec, err := w.Get(a.name)
	if errors.Is(err, workspace.ErrUnknownName) {
		return e.create(r, a.id) // the worktree was deleted: start afresh
	}
	if err != nil {
		return nil, err
	}
	pt, ok := r.Plan.TaskByID(a.id)
	if !ok {
		return nil, fmt.Errorf("run %s has no task %q", r.Name, a.id)
	}
	tail, err := lifecycle.Of(w).PaneTail(rec, TailLines)
	if err != nil {
		e.logf("run %s: task %s: read its pane: %v", r.Name, a.id, err)
	}
	return lifecycle.Of(w).Restart(a.name, RetryPrompt(pt.Task, a.attempt, a.failure, tail))
}

// RetryPrompt is the task of a new attempt in the worktree of the last:
// what went wrong (class, error, the last lines of its pane), that the
// earlier work is kept, the task, and how to end it.
func RetryPrompt(task string, attempt int, f *Failure, tail string) string {
	var b strings.Builder
	if f != nil {
		fmt.Fprintf(&b, "owt restarted this task (attempt %d): the previous attempt failed (%s: %s).\n", attempt, f.Class, f.Error)
	} else {
		fmt.Fprintf(&b, "owt restarted this task (attempt %d), as the user asked.\n", attempt)
	}
	if lines := unpadded(tail); len(lines) > 0 {
		b.WriteString("The last lines of the previous agent's pane:\n")
		for _, line := range lines {
			b.WriteString("| " + line + "\n") // quoted, so no line reads as the agent's own input
		}
	}
	b.WriteString("This worktree keeps the earlier attempt's commits and files: read git log and git status before you go on.\n\n")
	return b.String() + "Your task:\n" + task + "\n\n" + DoneInstruction
}

// unpadded are the lines of a pane's tail without the padding a screen
// holds: blanks at their ends, the empty lines of a TUI's unused screen,
// and long runs of blanks or rules (a box as wide as the pane) cut to
// three.
func unpadded(tail string) []string {
	var out []string
	for _, line := range strings.Split(tail, "\n") {
		if line = strings.TrimRight(line, " \t\r"); line != "" {
			out = append(out, shortRuns(line))
		}
	}
	return out
}

// paddingRun is how long a run of one blank or rule character may be
// before it is cut to three.
const paddingRun = 8

// shortRuns cuts each run of more than paddingRun spaces or box rules
// (─ ━ ═ and their dashed kin) to three.
func shortRuns(line string) string {
	rs := []rune(line)
	var b strings.Builder
	for i := 0; i < len(rs); {
		j := i
		for j < len(rs) && rs[j] == rs[i] {
			j++
		}
		n := j - i
		if n > paddingRun && isPadding(rs[i]) {
			n = 3
		}
		b.WriteString(strings.Repeat(string(rs[i]), n))
		i = j
	}
	return b.String()
}

func isPadding(r rune) bool {
	return r == ' ' || (r >= '─' && r <= '╍') || r == '═'
}

// ResumePrompt is the task of an agent whose session was lost with its
// tmux server and that owt run resume brought back.
func ResumePrompt(task string) string {
	return "The tmux server restarted and your previous session was lost; owt started you again in the same worktree. " +
		"Its commits and files are kept: read git log and git status, then go on.\n\nYour task:\n" + task + "\n\n" + DoneInstruction
}
