package workspace

import (
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
	prof, ok := w.Tools[r.Tool]
	if !ok {
		return agent.ClassUnknown, ""
	}
	cl, err := agent.NewClassifier(prof)
	if err != nil {
		return agent.ClassUnknown, ""
	}
	if err := w.checkPane(r); err != nil {
		return agent.ClassUnknown, ""
	}
	screen, err := w.Tmux.Capture(r.Pane)
	if err != nil {
		return agent.ClassUnknown, ""
	}
	return cl.Read(screen)
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
