package workspace

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// pasteOver is the length above which text goes through a paste buffer
// rather than send-keys.
const pasteOver = 512

// Deliver types text into a pane literally and presses Enter once the text
// has landed. Multi-line or long text goes in as one bracketed paste, so
// its newlines do not submit early; short text is sent with send-keys -l,
// so "C-c" or "Enter" stay words.
func Deliver(tm *tmux.Client, pane, text string) error {
	before, _ := tm.Capture(pane)
	var err error
	if strings.ContainsAny(text, "\r\n") || len(text) > pasteOver {
		err = tm.Paste(pane, text)
	} else {
		err = tm.SendLiteral(pane, text)
	}
	if err != nil {
		return err
	}
	waitLanded(tm, pane, before)
	return tm.SendKey(pane, "Enter")
}

// waitLanded waits until the pane shows the typed text (its screen changed)
// and has stopped changing, so Enter is not read as part of the paste.
// TUIs that treat fast input as a paste would otherwise swallow the Enter.
func waitLanded(tm *tmux.Client, pane, before string) {
	deadline := time.Now().Add(2 * time.Second)
	last := before
	changed, stable := false, 0
	for time.Now().Before(deadline) {
		time.Sleep(40 * time.Millisecond)
		cur, err := tm.Capture(pane)
		if err != nil {
			return
		}
		if cur != before {
			changed = true
		}
		if changed && cur == last {
			stable++
			if stable >= 2 {
				return
			}
		} else {
			stable = 0
		}
		last = cur
	}
}

// SendResult is the outcome of sending to one agent.
type SendResult struct {
	Name string `json:"name"`
	Sent bool   `json:"sent"`
	Err  string `json:"error,omitempty"`
}

// ErrNotRunning is returned when an agent cannot receive text.
var ErrNotRunning = errors.New("agent is not running")

// Send delivers text to each named agent's pane.
func (w *Workspace) Send(recs []*state.Record, text string) []SendResult {
	out := make([]SendResult, 0, len(recs))
	for _, r := range recs {
		res := SendResult{Name: r.Name}
		if err := w.sendOne(r, text); err != nil {
			res.Err = err.Error()
		} else {
			res.Sent = true
		}
		out = append(out, res)
	}
	return out
}

func (w *Workspace) sendOne(r *state.Record, text string) error {
	if r.NoAgent {
		return fmt.Errorf("%s: %w (it was created with --no-agent; typing into its shell would run commands)", r.Name, ErrNotRunning)
	}
	if r.Status == state.Exited {
		return fmt.Errorf("%s: %w (it exited; its pane is a shell now)", r.Name, ErrNotRunning)
	}
	if err := w.checkPane(r); err != nil {
		return err
	}
	if err := Deliver(w.Tmux, r.Pane, text); err != nil {
		return fmt.Errorf("send to %s: %w", r.Name, err)
	}
	_, _ = w.SetStatus(r.Name, state.Working, state.FromOwt, nil)
	return nil
}

// checkPane makes sure the recorded pane id still belongs to this record's
// session: after a tmux restart ids are reused by unrelated panes.
func (w *Workspace) checkPane(r *state.Record) error {
	if r.Pane == "" {
		return fmt.Errorf("%s: %w (no pane recorded; run 'owt attach %s')", r.Name, ErrNotRunning, r.Name)
	}
	got, err := w.Tmux.Display(r.Pane, "#{session_name}")
	if err != nil || got != r.Session {
		return fmt.Errorf("%s: %w (its tmux session is gone; 'owt attach %s' recreates it)", r.Name, ErrNotRunning, r.Name)
	}
	return nil
}

// Select returns the records to act on: the named ones (each must exist),
// or with all every record whose status is in statuses (any when empty).
func (w *Workspace) Select(names []string, all bool, statuses []state.Status) ([]*state.Record, error) {
	recs, err := w.Records()
	if err != nil {
		return nil, err
	}
	if !all && len(statuses) == 0 {
		var out []*state.Record
		for _, n := range names {
			r, err := w.Get(n)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		return out, nil
	}
	var out []*state.Record
	for _, r := range recs {
		if len(statuses) == 0 || containsStatus(statuses, r.Status) {
			out = append(out, r)
		}
	}
	return out, nil
}

func containsStatus(ss []state.Status, s state.Status) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
