package popups

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/owt-tmux/owt/internal/control"
)

// resolvable: the row's agent has a predicted conflict with its base, or
// a resolve under way to check (R).
func (m *ctl) resolvable(row control.Row) bool {
	if rec := m.record(row); rec != nil && (rec.InPlace || rec.NoAgent) {
		return false
	} else if rec != nil && rec.Resolve != nil {
		return true
	}
	return strings.HasPrefix(row.Prediction, "conflicts in") || strings.Contains(row.Why, "conflicts with")
}

// resolve is R: asked first, then control.Resolve through the desk — the
// base merged into the agent's own worktree, the conflicts handed to it;
// for a resolve under way, owt's check of it.
func (m *ctl) resolve(row control.Row, ok bool) (tea.Model, tea.Cmd) {
	if !ok || !row.IsAgent() {
		m.status, m.failed = "that row has no worktree to resolve", true
		return m, nil
	}
	rec := m.record(row)
	if rec == nil {
		m.status, m.failed = row.Name+" vanished", true
		return m, nil
	}
	do := func() tea.Msg {
		line, err := m.desk.Resolve(rec)
		if err != nil {
			return verbMsg{err: err}
		}
		return verbMsg{text: line}
	}
	if rec.Resolve != nil {
		m.mode, m.status, m.failed = busy, "checking "+rec.Name+"'s resolve …", false
		return m, do
	}
	m.ask, m.mode, m.status = &question{
		title: fmt.Sprintf("Let %s resolve its conflicts with %s?", rec.Name, rec.Base),
		body: []string{
			fmt.Sprintf("owt merges %s into %s in its own worktree (never your checkout), leaving the conflicts there,", rec.Base, rec.Branch),
			"and tells the agent (started again if it exited) to resolve them, run the tests and commit.",
			"owt commits nothing; it checks the agent's work before showing it READY TO SHIP.",
		},
		yes: "resolving " + rec.Name, do: do,
	}, confirming, ""
	return m, nil
}
