package run

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// TailLines is how much of a failed attempt's pane its retry is shown.
const TailLines = 30

// FailAttempt records a failed attempt through Fail: backoff while
// attempts are left (the retry keeps the worktree), else failed with its
// dependents blocked. The evidence of the last judgement is kept.
func (r *Run) FailAttempt(t *TaskRun, f Failure, ev *Evidence, jitter Jitter, now time.Time) []Event {
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

// RetryPrompt is the task of a new attempt in the worktree of the last:
// what went wrong (class, error, the last lines of its pane), that the
// earlier work is kept, the task, and how to end it.
func RetryPrompt(task string, attempt int, f *Failure, tail string) string {
	var b strings.Builder
	if f != nil {
		fmt.Fprintf(&b, "owt restarted this task (attempt %d): the previous attempt failed (%s: %s).\n", attempt, f.Class, f.Error.Typed())
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

// FreshRetryPrompt is the task of a new attempt in a new worktree (a
// task on a host starts each attempt afresh, from the task's start): what
// went wrong, that the earlier agent's worktree is left where it is, the
// task, and how to end it.
func FreshRetryPrompt(task string, attempt int, f *Failure, earlier string) string {
	var b strings.Builder
	if f != nil {
		fmt.Fprintf(&b, "owt started this task again (attempt %d): the previous attempt failed (%s: %s).\n", attempt, f.Class, f.Error.Typed())
	} else {
		fmt.Fprintf(&b, "owt started this task again (attempt %d), as the user asked.\n", attempt)
	}
	fmt.Fprintf(&b, "This is a fresh worktree from the task's start; the previous attempt's agent (%s) and its worktree were left as they are.\n\n", earlier)
	return b.String() + "Your task:\n" + task + "\n\n" + DoneInstruction
}
