package status

import (
	"errors"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// View is what owt status shows of one agent.
type View struct {
	Name     string    `json:"name"`
	Tool     string    `json:"tool"`
	Status   string    `json:"status"`
	Since    time.Time `json:"since"`
	Source   string    `json:"source"`
	ExitCode *int      `json:"exit_code,omitempty"`
	// WaitingFor is what a waiting agent waits for (trust, login, API key,
	// permission, question).
	WaitingFor string `json:"waiting_for,omitempty"`
	// Limit is the usage limit of a limited agent, with its reset time.
	Limit *state.Limit `json:"limit,omitempty"`
	// TurnError is why its last turn failed; the task is kept.
	TurnError untrusted.Untrusted `json:"turn_error,omitzero"`
	// Interrupted: the user stopped its last turn (Esc); no turn finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// Done is what the agent said with owt done this turn.
	Done    *state.DoneSignal `json:"done,omitempty"`
	Session string            `json:"session"`
	// InPlace: it works in the user's own checkout, not a worktree.
	InPlace bool   `json:"in_place"`
	Path    string `json:"path"`
	Pane    string `json:"pane,omitempty"`
	Live    bool   `json:"live"`
	// Elsewhere says how to reach an agent on another tmux server.
	Elsewhere string `json:"elsewhere,omitempty"`
	// AgentSession is the tool's own session id, as its hooks (or its
	// session files) named it: what owt restore resumes.
	AgentSession string `json:"agent_session,omitempty"`
	// Resume is how owt last started it again in its worktree: resumed,
	// or fresh and why.
	Resume *state.Resume `json:"resume,omitempty"`
	// Lines are the last non-blank lines of the agent's pane.
	Lines []untrusted.Untrusted `json:"last_lines"`
}

// Of returns the status of the agent called name with the last
// lines lines of its pane (none when its session is gone).
func Of(w *workspace.Workspace, name string, lines int) (View, error) {
	r, err := w.Get(name)
	if err != nil {
		return View{}, err
	}
	v := View{
		Name: r.Name, Tool: workspace.ToolOf(r), Status: string(r.Status), Since: r.StatusSince,
		Source: string(r.Source), ExitCode: r.ExitCode, Session: r.Session, Pane: r.Pane,
		WaitingFor: r.WaitingFor, Limit: r.Limit, TurnError: r.TurnError, Done: r.Done,
		Interrupted: r.Interrupted && r.Status == state.Idle,
		InPlace:     r.InPlace, Path: r.Path,
		AgentSession: r.AgentSession, Resume: r.Resume,
		Lines: []untrusted.Untrusted{},
	}
	if err := w.CheckPane(r); err != nil {
		if errors.Is(err, workspace.ErrOtherServer) {
			v.Elsewhere = err.Error()
		}
		return v, nil
	}
	v.Live = true
	if lines <= 0 {
		return v, nil
	}
	if screen, err := w.Tmux.Capture(r.Pane); err == nil {
		all := agent.ScreenLines(screen)
		var kept []untrusted.Untrusted // what the agent drew: its words
		for _, l := range all {
			if l != "" || len(kept) > 0 {
				kept = append(kept, untrusted.From(l))
			}
		}
		if len(kept) > lines {
			kept = kept[len(kept)-lines:]
		}
		v.Lines = append(v.Lines, kept...)
	}
	return v, nil
}
