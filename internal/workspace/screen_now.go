package workspace

import (
	"errors"
	"fmt"
	"sync"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
)

// ScreenNow reads r's pane as it is this moment with its tool's
// classifier, as the monitor does: the record can lag the screen by the
// monitor's look (a second or more, for tools without hooks), and a prompt
// or a spinner on screen is the truth. It says ClassUnknown when the pane
// cannot be read or owt has no patterns for the tool.
func (w *Workspace) ScreenNow(r *state.Record) (class agent.Class, reason string) {
	if r.NoAgent || r.Pane == "" || r.Status == state.Exited {
		return agent.ClassUnknown, ""
	}
	cl := w.ToolClassifier(r.Tool)
	if cl == nil || w.CheckPane(r) != nil {
		return agent.ClassUnknown, ""
	}
	return w.ReadScreen(r, cl)
}

// ReadScreen is ScreenNow on a pane already checked to be r's, with its
// tool's classifier (ClassUnknown when cl is nil).
func (w *Workspace) ReadScreen(r *state.Record, cl *agent.Classifier) (agent.Class, string) {
	if cl == nil {
		return agent.ClassUnknown, ""
	}
	screen, err := w.Tmux.Capture(r.Pane)
	if err != nil {
		return agent.ClassUnknown, ""
	}
	return cl.Read(screen)
}

// ToolClassifier is the classifier of a tool owt has a profile for, nil
// for another tool or invalid patterns.
func (w *Workspace) ToolClassifier(tool string) *agent.Classifier {
	prof, ok := w.Tools[tool]
	if !ok {
		return nil
	}
	return w.ClassifierOf(prof)
}

// classifierCache holds the classifiers compiled for a Workspace's tools.
type classifierCache struct {
	mu sync.Mutex
	m  map[classifierKey]*agent.Classifier
}

// classifierKey is what a classifier is compiled from: a profile changed
// in place compiles again.
type classifierKey struct{ name, working, waiting, idle, statusBar string }

// ClassifierOf is agent.NewClassifier(prof), compiled once per Workspace;
// nil when a pattern is invalid.
func (w *Workspace) ClassifierOf(prof agent.Profile) *agent.Classifier {
	k := classifierKey{prof.Name, prof.Working, prof.Waiting, prof.Idle, prof.StatusBar}
	c := &w.classifiers
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.m[k]
	if !ok {
		cl, _ = agent.NewClassifier(prof)
		if c.m == nil {
			c.m = map[classifierKey]*agent.Classifier{}
		}
		c.m[k] = cl
	}
	return cl
}

// BusyOnScreen is why r's agent is busy by its screen ("is working",
// "waits for you"), "" when the screen shows neither.
func (w *Workspace) BusyOnScreen(r *state.Record) string {
	switch class, _ := w.ScreenNow(r); class {
	case agent.ClassWorking:
		return "is working"
	case agent.ClassWaiting:
		return "waits for you"
	}
	return ""
}

// ErrNotRunning is returned when an agent cannot receive text.
var ErrNotRunning = errors.New("agent is not running")

// CheckPane makes sure the recorded pane id still belongs to this record's
// session: after a tmux restart ids are reused by unrelated panes.
func (w *Workspace) CheckPane(r *state.Record) error {
	if r.Pane == "" {
		return fmt.Errorf("%s: %w (no pane recorded; run 'owt attach %s')", r.Name, ErrNotRunning, r.Name)
	}
	where, err := w.Locate(r)
	if err != nil {
		return err
	}
	switch where.Place {
	case Elsewhere:
		return fmt.Errorf("%s %w (%s): run owt there, e.g. owt -S %s send %s …", r.Name, ErrOtherServer, where.Socket, where.Socket, r.Name)
	case Gone:
		return fmt.Errorf("%s: %w (its tmux session is gone; 'owt attach %s' recreates it)", r.Name, ErrNotRunning, r.Name)
	}
	// The pane must still be in the record's session (ids of a session's
	// panes are its own while the server runs; a join-pane moves them).
	if got, err := w.Tmux.Display(r.Pane, "#{session_id}"); err != nil || got != where.SessionID {
		return fmt.Errorf("%s: %w (its pane %s is no longer in its session; 'owt attach %s' goes there)", r.Name, ErrNotRunning, r.Pane, r.Name)
	}
	return nil
}
