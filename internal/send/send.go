// Package send types text into agents' panes, now or later: literally,
// Enter only once the text has landed, and only into an agent that can
// take it (owt send, the pane runner's pasted task); and the outbox's
// courier, which types queued messages into each agent once it is idle
// (the monitor of each tmux server runs one Courier).
package send

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// pasteOver is the length above which text goes through a paste buffer
// rather than send-keys.
const pasteOver = 512

// Errors of Deliver: what the agent got, so the caller can say it.
var (
	// ErrNotLanded: the typed text never showed on the screen, so Enter
	// was not pressed (it could submit a half or send a stray Enter).
	ErrNotLanded = errors.New("the text did not show on its screen; Enter was not pressed")
	// ErrNotSubmitted: the text showed but no Enter took.
	ErrNotSubmitted = errors.New("the text is typed but not submitted: Enter did not take")
	// ErrPartAnswer: a dialog took the first key(s) of the text as its
	// answer and the rest went into the agent's input, unsubmitted.
	ErrPartAnswer = errors.New("its prompt took part of the text as its answer; the rest is typed in its input, not submitted")
	// ErrPromptCameUp: a prompt showed up while the text was typed and
	// may have taken some of it; Enter was not pressed.
	ErrPromptCameUp = errors.New("a prompt came up as the text was typed and may have taken it as its answer; Enter was not pressed")
)

// enterTries is how many times Enter is pressed before a send gives up.
const enterTries = 3

// Delivery says how to tell that text reached a pane's program.
type Delivery struct {
	// Timeout bounds the wait for the text to show; each Enter waits a
	// tenth of it (at least a second) for the screen to answer.
	Timeout time.Duration
	// Volatile matches screen lines that change by themselves (a spinner,
	// a clock, a status bar); they are no evidence that text landed or
	// was submitted. nil ignores no line.
	Volatile *regexp.Regexp
	// Took, when set, reports other evidence that the agent took the
	// text after Enter at the given time (a hook saying it works).
	Took func(enter time.Time) bool
	// Answered, when set, reports from the screen before the text and the
	// screen once it landed that a prompt took it as its answer (a menu
	// picks "1" at once): then no Enter is pressed, which would answer
	// whatever dialog comes next.
	Answered func(before, landed string) bool
	// Landed, when set, is given the screen once the text showed on it,
	// before any Enter; an error it returns stops the send, no Enter.
	Landed func(landed string) error
}

// Deliver types text into a pane literally and presses Enter once the text
// has landed, then makes sure the Enter took. Multi-line or long text goes
// in as one bracketed paste, so its newlines do not submit early; short
// text is sent with send-keys -l, so "C-c" or "Enter" stay words.
func Deliver(tm *tmux.Client, pane string, msg untrusted.Untrusted, d Delivery) error {
	_, err := deliver(tm, pane, msg, d)
	return err
}

// deliver is Deliver that also says whether a dialog took the text as its
// answer (d.Answered), so no Enter was pressed.
func deliver(tm *tmux.Client, pane string, msg untrusted.Untrusted, d Delivery) (answered bool, err error) {
	text := msg.Typed()
	before, err := d.capture(tm, pane)
	if err != nil {
		return false, err
	}
	if pasted(text) {
		err = tm.Paste(pane, text)
	} else {
		err = tm.SendLiteral(pane, text)
	}
	if err != nil {
		return false, err
	}
	landed, ok := d.waitSettled(tm, pane, before, d.Timeout)
	if !ok {
		return false, fmt.Errorf("%w (waited %s)", ErrNotLanded, d.Timeout)
	}
	if d.Landed != nil {
		if err := d.Landed(landed); err != nil {
			return false, err
		}
	}
	if d.Answered != nil && d.Answered(before, landed) {
		return true, nil
	}
	// TUIs that take fast input for a paste swallow an Enter that comes
	// with it, so the Enter is checked and, if need be, pressed again.
	for try := 0; try < enterTries; try++ {
		enter := time.Now()
		if err := tm.SendKey(pane, "Enter"); err != nil {
			return false, err
		}
		var took func() bool
		if d.Took != nil {
			took = func() bool { return d.Took(enter) }
		}
		if d.waitChanged(tm, pane, landed, d.enterWait(), took) {
			return false, nil
		}
	}
	return false, ErrNotSubmitted
}

func (d Delivery) enterWait() time.Duration {
	return max(d.Timeout/10, time.Second)
}

// capture is the pane's screen without its volatile lines.
func (d Delivery) capture(tm *tmux.Client, pane string) (string, error) {
	screen, err := tm.Capture(pane)
	if err != nil || d.Volatile == nil {
		return screen, err
	}
	lines := strings.Split(screen, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !d.Volatile.MatchString(l) {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n"), nil
}

// settleMax bounds the wait for a changed screen to hold still: a screen
// with a clock of its own never does, and the change was the text.
const settleMax = 2 * time.Second

// waitSettled waits up to limit for the screen to differ from before and
// then to hold still for two looks, so Enter is not read as part of the
// paste; it returns that screen, or false if it never changed.
func (d Delivery) waitSettled(tm *tmux.Client, pane, before string, limit time.Duration) (string, bool) {
	deadline := time.Now().Add(limit)
	last := before
	changed, stable := false, 0
	for {
		time.Sleep(40 * time.Millisecond)
		cur, err := d.capture(tm, pane)
		if err != nil {
			return "", false
		}
		if cur != before && !changed {
			changed = true
			deadline = minTime(deadline, time.Now().Add(settleMax))
		}
		if changed && cur == last {
			if stable++; stable >= 2 {
				return cur, true
			}
		} else {
			stable = 0
		}
		last = cur
		if time.Now().After(deadline) {
			return cur, changed
		}
	}
}

// waitChanged waits up to limit for the screen to differ from before, or
// for took (when not nil) to say the agent took the text.
func (d Delivery) waitChanged(tm *tmux.Client, pane, before string, limit time.Duration, took func() bool) bool {
	deadline := time.Now().Add(limit)
	for {
		// A TUI redraws within a frame or two of Enter: look often.
		time.Sleep(20 * time.Millisecond)
		if took != nil && took() {
			return true
		}
		cur, err := d.capture(tm, pane)
		if err != nil {
			return false
		}
		if cur != before {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// Result is the outcome of sending to one agent: Sent when the text
// became a prompt, Answered when (with Options.Answer) the prompt the
// agent waited on took it as its answer.
type Result struct {
	Name     string `json:"name"`
	Sent     bool   `json:"sent"`
	Answered bool   `json:"answered,omitempty"`
	Err      string `json:"error,omitempty"`
}

// Options tune Each, EachWith and To.
type Options struct {
	// Answer types into an agent that waits for the user (a permission
	// prompt, a question): the text answers that prompt. Without it such
	// an agent is refused, so a message never approves a command.
	Answer bool
	// OnlyIdle types only into an agent that is idle when its send lock
	// is taken (owt's own messages: the outbox); otherwise ErrNotReady.
	OnlyIdle bool
}

// Each delivers text to each named agent's pane.
func Each(w *workspace.Workspace, recs []*state.Record, msg untrusted.Untrusted) []Result {
	return EachWith(w, recs, msg, Options{})
}

// EachWith is Each with options.
func EachWith(w *workspace.Workspace, recs []*state.Record, msg untrusted.Untrusted, o Options) []Result {
	out := make([]Result, 0, len(recs))
	for _, r := range recs {
		res := Result{Name: r.Name}
		answered, err := sendOne(w, r, msg, o)
		switch {
		case err != nil:
			res.Err = err.Error()
		case answered:
			res.Answered = true
		default:
			res.Sent = true
		}
		out = append(out, res)
	}
	return out
}

// sendOne types text into r's agent; answered says a prompt the agent
// waited on took it as its answer (o.Answer) rather than as a new prompt.
func sendOne(w *workspace.Workspace, r *state.Record, msg untrusted.Untrusted, o Options) (answered bool, err error) {
	if r.NoAgent {
		return false, fmt.Errorf("%s: %w (it was created with --no-agent; typing into its shell would run commands)", r.Name, workspace.ErrNotRunning)
	}
	// One sender at a time per agent: two texts typed at once merge into
	// one prompt. Sends go in the order they got the lock.
	unlock, err := state.LockAgent(w.Repo.Root, r.Name)
	if err != nil {
		return false, err
	}
	defer unlock()
	// Judge the agent as it is now, not as the caller saw it (a popup's
	// row, a queue's look): a prompt that appeared meanwhile must not get
	// this text as its answer.
	if r, err = w.Get(r.Name); err != nil {
		return false, err
	}
	if r, err = awaitStarted(w, r); err != nil {
		return false, err
	}
	if o.OnlyIdle && r.Status != state.Idle && !limitPassed(r, time.Now()) {
		return false, fmt.Errorf("%s: %w: it is %s now; owt's message waits for its next idle turn", r.Name, ErrNotReady, r.Status)
	}
	if r.Status == state.Exited {
		return false, exitedError(w, r)
	}
	if err := w.CheckPane(r); err != nil {
		return false, err
	}
	// The screen as it is now: the record lags it (the monitor looks every
	// second or so; tools without hooks are known by their screens only),
	// and a prompt on screen takes typed keys as its answer, whatever the
	// record says.
	screen, reason := w.ReadScreen(r, w.ToolClassifier(r.Tool))
	waiting, waitingFor := r.Status == state.Waiting, r.WaitingFor
	if screen == agent.ClassWaiting && !waiting {
		waiting, waitingFor = true, reason
	}
	if o.OnlyIdle && (screen == agent.ClassWorking || screen == agent.ClassWaiting) {
		return false, fmt.Errorf("%s: %w: its screen shows it %s now; owt's message waits for its next idle turn", r.Name, ErrNotReady, screen)
	}
	if waiting && agent.FirstRunWait(waitingFor) {
		return false, fmt.Errorf("%s: %w: %s waits for %s on its first-run screen; answer it first ('owt switch %s'), then send", r.Name, ErrNotReady, r.Tool, waitingFor, r.Name)
	}
	if waiting && !o.Answer {
		what := waitingFor
		if what == "" {
			what = "an answer"
		}
		return false, fmt.Errorf("%s: %w: it waits for your %s, and typed text would answer that prompt; nothing was typed; answer it there ('owt switch %s'), or type into it with owt send --answer %s TEXT", r.Name, ErrNotReady, what, r.Name, r.Name)
	}
	// An answer goes only to a prompt that is there: typed into an agent
	// that is no longer waiting (the user answered meanwhile), it would
	// become a new prompt. A screen owt cannot read leaves the record.
	if o.Answer && !(screen == agent.ClassWaiting || screen == agent.ClassUnknown && r.Status == state.Waiting) {
		return false, fmt.Errorf("%s: %w: it does not wait on a prompt now (its screen reads %s), so an answer would become a new prompt; nothing was typed; send it without --answer to make it a prompt", r.Name, ErrNotReady, screenWord(screen, r.Status))
	}
	d := DeliveryFor(w, r.Tool)
	d.Took = workingSince(w, r.Name)
	// Typed after text already in the box, the message would be glued to
	// it and sent as one prompt. A dialog's own input is the answer's.
	if !waiting {
		if err := clearInput(w, r, d); err != nil {
			return false, err
		}
	}
	own := typed{Text: msg.Typed()}
	if err := rememberTyped(w.Repo.Root, r.Name, own); err != nil {
		return false, err
	}
	leftover, surprised := "", false
	if cl := w.ClassifierOf(w.Tools[r.Tool]); cl != nil {
		if !waiting { // a dialog's own input is the answer's
			d.Landed = func(landed string) error {
				held, ok := cl.InputText(landed)
				if !ok {
					return nil
				}
				// A paste shows as a numbered token: this one is owt's.
				if pasted(own.Text) && pasteToken.MatchString(held) {
					own.Shown = held
					_ = rememberTyped(w.Repo.Root, r.Name, own)
					return nil
				}
				return gluedAfter(w, r, held, own)
			}
		}
		d.Answered = func(before, landed string) bool {
			if !waiting {
				// A prompt that came up as the text was typed may have
				// taken it: no Enter, which could answer it.
				surprised = cl.Classify(before) != agent.ClassWaiting && cl.Classify(landed) == agent.ClassWaiting &&
					answeredBy(cl, msg.Typed(), before, landed) && !markerTyped(cl.WaitingBlock(landed), msg.Typed())
				return surprised
			}
			if !answeredBy(cl, msg.Typed(), before, landed) {
				return false
			}
			leftover = typedRest(msg.Typed(), before, landed)
			return true
		}
	}
	typedAt := w.Now()
	answered, err = deliver(w.Tmux, r.Pane, msg, d)
	if errors.Is(err, ErrInputHeld) {
		return false, err
	}
	if err != nil {
		return false, fmt.Errorf("send to %s: %w", r.Name, err)
	}
	if surprised {
		return false, fmt.Errorf("%s: %w; look there ('owt switch %s')", r.Name, ErrPromptCameUp, r.Name)
	}
	if leftover != "" {
		// What is left in the box is owt's: the next send may erase it.
		_ = rememberTyped(w.Repo.Root, r.Name, typed{Text: leftover})
		return false, fmt.Errorf("%s: %w (%q): clear it there ('owt switch %s')", r.Name, ErrPartAnswer, leftover, r.Name)
	}
	// Taken: a draft that later starts like it is not its leftover.
	own.Submitted = true
	_ = rememberTyped(w.Repo.Root, r.Name, own)
	// Typed into a prompt the agent waited on, the text answered it (by
	// its keys, or with Enter in the dialog's own input): not a prompt.
	answered = answered || waiting
	// Working now, as of when the text was typed: a hook that reported
	// since (the turn already over) is newer and stands, and so does the
	// runner's exit (the text may have been /exit).
	_, changed, _ := w.ChangeStatus(r.Name, func(cur *state.Record) (state.StatusChange, bool) {
		return state.StatusChange{Status: state.Working, Source: state.FromOwt, At: typedAt}, cur.Status != state.Exited
	})
	if changed {
		status.PublishCurrent(&w.Ledger, r.Name)
	}
	return answered, nil
}

// markerTyped reports whether the row that makes a screen read as waiting
// (the last of its waiting block) is a piece of the typed text itself: a
// message quoting "Press enter to continue" or "(y/n)" is no dialog.
func markerTyped(block, text string) bool {
	rows := strings.Split(block, "\n")
	row := strings.Trim(rows[len(rows)-1], " \t│┃|>›❯")
	return row != "" && strings.Contains(text, row)
}

// screenWord names what an agent is doing for a message: its screen's
// reading, or its record's status when the screen says nothing.
func screenWord(screen agent.Class, status state.Status) string {
	if screen == agent.ClassUnknown {
		return string(status)
	}
	return string(screen)
}

// typedRest is what of text a dialog did not take when its first key
// answered it: the rest, when the screen now shows it more often than
// before (it went into the agent's input); "" when there is none to see.
func typedRest(text, before, landed string) string {
	runes := []rune(strings.TrimSpace(text))
	if len(runes) < 2 {
		return ""
	}
	rest := strings.TrimSpace(string(runes[1:]))
	if rest == "" || strings.Count(landed, rest) <= strings.Count(before, rest) {
		return ""
	}
	return rest
}

// exitedError says why an exited agent cannot take text: its session was
// killed, or the agent exited and left a shell in the pane.
func exitedError(w *workspace.Workspace, r *state.Record) error {
	if err := w.CheckPane(r); err != nil {
		return err
	}
	return fmt.Errorf("%s: %w (it exited; its pane is a shell now)", r.Name, workspace.ErrNotRunning)
}

// awaitStarted waits, up to [agent] send_timeout, while the agent is
// starting: a TUI drops what is typed before it is ready, and owt's runner
// moves the record on only once the tool's prompt shows (and, for tools
// that get their task pasted, after pasting it). It returns the record as
// it is now.
func awaitStarted(w *workspace.Workspace, r *state.Record) (*state.Record, error) {
	timeout := w.Config.Agent.SendTimeout.Duration
	deadline := time.Now().Add(timeout)
	for r.Status == state.Starting {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: %w (it is still starting after %s; nothing was typed; [agent] send_timeout sets the wait)", r.Name, workspace.ErrNotRunning, timeout)
		}
		time.Sleep(100 * time.Millisecond)
		cur, err := w.Get(r.Name)
		if err != nil {
			return nil, err
		}
		r = cur
	}
	return r, nil
}

// workingSince reports whether a hook said the agent called name works,
// at or after a given time: the tool took a prompt.
func workingSince(w *workspace.Workspace, name string) func(time.Time) bool {
	return func(at time.Time) bool {
		r, err := w.Get(name)
		return err == nil && r.Status == state.Working && r.Source == state.FromHook && !r.EventAt.Before(at)
	}
}

// DeliveryFor is how owt tells that text reached the named tool: its spinner
// and status-bar lines change by themselves and prove nothing.
func DeliveryFor(w *workspace.Workspace, tool string) Delivery {
	d := Delivery{Timeout: w.Config.Agent.SendTimeout.Duration}
	prof, ok := w.Tools[tool]
	if !ok {
		return d
	}
	var parts []string
	for _, p := range []string{prof.Working, prof.StatusBar} {
		if _, err := agent.CompilePattern(p); p != "" && err == nil {
			parts = append(parts, "(?:"+p+")")
		}
	}
	if len(parts) > 0 {
		d.Volatile, _ = agent.CompilePattern(strings.Join(parts, "|"))
	}
	return d
}

// ErrNotReady is returned for an agent whose tool is not ready for text.
var ErrNotReady = errors.New("not ready")

// answeredBy reports whether text typed into a waiting agent answered its
// dialog by itself: the screen no longer waits, or it shows another dialog
// that does not hold the text (a menu took "1" and the next question came
// up; an Enter now would answer that one, which the user never saw).
func answeredBy(cl *agent.Classifier, text, before, landed string) bool {
	block, was := cl.WaitingBlock(landed), cl.WaitingBlock(before)
	if block == "" {
		return true
	}
	// Typed into the dialog's own input, the text shows in it once more
	// than before ("1" is in every menu's "1. Yes" already).
	t := strings.TrimSpace(text)
	echoed := t != "" && strings.Count(block, t) > strings.Count(was, t)
	return block != was && !echoed
}

// limitPassed reports whether r is limited by a usage limit whose reset
// time has passed: it sits at its prompt and can take work again, so
// owt's messages may go to it (before the reset they would be spent on a
// turn the limit ends at once).
func limitPassed(r *state.Record, now time.Time) bool {
	return r.Status == state.Limited && r.Limit.HasReset(now)
}
