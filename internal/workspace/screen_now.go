package workspace

import (
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
	cl := w.toolClassifier(r.Tool)
	if cl == nil || w.checkPane(r) != nil {
		return agent.ClassUnknown, ""
	}
	return w.readScreen(r, cl)
}

// readScreen is ScreenNow on a pane already checked to be r's, with its
// tool's classifier (ClassUnknown when cl is nil).
func (w *Workspace) readScreen(r *state.Record, cl *agent.Classifier) (agent.Class, string) {
	if cl == nil {
		return agent.ClassUnknown, ""
	}
	screen, err := w.Tmux.Capture(r.Pane)
	if err != nil {
		return agent.ClassUnknown, ""
	}
	return cl.Read(screen)
}

// toolClassifier is the classifier of a tool owt has a profile for, nil
// for another tool or invalid patterns.
func (w *Workspace) toolClassifier(tool string) *agent.Classifier {
	prof, ok := w.Tools[tool]
	if !ok {
		return nil
	}
	return w.classifierOf(prof)
}

// classifierCache holds the classifiers compiled for a Workspace's tools.
type classifierCache struct {
	mu sync.Mutex
	m  map[classifierKey]*agent.Classifier
}

// classifierKey is what a classifier is compiled from: a profile changed
// in place compiles again.
type classifierKey struct{ name, working, waiting, idle, statusBar string }

// classifierOf is agent.NewClassifier(prof), compiled once per Workspace;
// nil when a pattern is invalid.
func (w *Workspace) classifierOf(prof agent.Profile) *agent.Classifier {
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
