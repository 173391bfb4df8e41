package popups

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/owt-tmux/owt/internal/control"
)

// action is one key of a screen: the keys that press it and its hint in
// the footer (a key.Binding; a hint without a key is not shown), its line
// in the ? help, and what it does. Each screen has one table of them,
// which drives its dispatch, its footer and its help, so the three cannot
// tell different stories.
type action struct {
	key.Binding
	helpKeys string // the keys as the help names them ("" : the hint's)
	help     string // the help's line ("" : not in the help)
	// active says the action is there now: it runs, and shows in the
	// footer (nil: always).
	active func(m *ctl) bool
	// offered says the footer shows it now; a key that is active but not
	// offered still runs, to say why it does nothing here (nil: whenever
	// it is active).
	offered func(m *ctl) bool
	do      func(m *ctl, k tea.KeyMsg) (tea.Model, tea.Cmd)
}

func bind(hint, what string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(hint, what))
}

// find is the first active action of table bound to k.
func (m *ctl) find(table []action, k tea.KeyMsg) (action, bool) {
	for _, a := range table {
		if (a.active == nil || a.active(m)) && key.Matches(k, a.Binding) {
			return a, true
		}
	}
	return action{}, false
}

// dispatch runs the action of table bound to k, if any.
func (m *ctl) dispatch(table []action, k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if a, ok := m.find(table, k); ok {
		return a.do(m, k)
	}
	return m, nil
}

// hints are the footer's entries of table: the active, offered actions
// that have a hint.
func (m *ctl) hints(table []action) []string {
	var out []string
	for _, a := range table {
		h := a.Help()
		if h.Key == "" || (a.active != nil && !a.active(m)) || (a.offered != nil && !a.offered(m)) {
			continue
		}
		out = append(out, h.Key+" "+h.Desc)
	}
	return out
}

// helpLines are the ? help's lines of table, one per action with a help.
func helpLines(table []action) []string {
	var out []string
	for _, a := range table {
		if a.help == "" {
			continue
		}
		keys := a.helpKeys
		if keys == "" {
			keys = a.Help().Key
		}
		out = append(out, fmt.Sprintf("%-9s %s", keys, a.help))
	}
	return out
}

// agentRow: the selected row is an agent's worktree, here or on a host
// (where its verbs run: the desk's remote verbs).
func agentRow(m *ctl) bool { row, ok := m.selected(); return ok && row.IsAgent() }

// localAgentRow: the selected row is an agent's worktree here.
func localAgentRow(m *ctl) bool {
	row, ok := m.selected()
	return ok && row.IsAgent() && !row.IsRemote()
}

// refuseRemote says that verb k is not done from the board for an agent
// on a host, and which command does it.
func refuseRemote(m *ctl, row control.Row, k string) (tea.Model, tea.Cmd) {
	at := row.Name + "@" + row.Host
	how := map[string]string{
		"a": "see its reactions with owt why " + at,
		"R": "resolve in its worktree there (owt switch " + at + ")",
	}[k]
	m.status, m.failed = fmt.Sprintf("%s runs on host %s: not from this board yet; %s", at, row.Host, how), true
	return m, nil
}

// taskRow: the selected row is a run task.
func taskRow(m *ctl) bool { row, ok := m.selected(); return ok && row.IsTask() }

// browseKeys is the board's key table, in the footer's order.
func browseKeys() []action {
	agentVerb := func(m *ctl, k tea.KeyMsg) (tea.Model, tea.Cmd) {
		row, ok := m.selected()
		if !ok || !row.IsAgent() {
			m.status, m.failed = "that row has no worktree to "+verbName(k.String()), true
			return m, nil
		}
		return m.agentVerb(k.String(), row)
	}
	taskVerb := func(m *ctl, k tea.KeyMsg) (tea.Model, tea.Cmd) {
		row, ok := m.selected()
		if !ok || !row.IsTask() {
			m.status, m.failed = "that row is not a run task", true
			return m, nil
		}
		return m.taskVerb(k.String(), row)
	}
	return []action{
		{Binding: bind("↑↓", "move", "up", "k"), helpKeys: "↑/↓ j/k", help: "move",
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				m.cursor = max(m.cursor-1, 0)
				return m, m.detailCmd()
			}},
		{Binding: bind("", "", "down", "j"),
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				m.cursor = min(m.cursor+1, max(0, len(m.rows)-1))
				return m, m.detailCmd()
			}},
		{Binding: bind("", "", "home", "g"),
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { m.cursor = 0; return m, nil }},
		{Binding: bind("", "", "end", "G"),
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { m.cursor = max(0, len(m.rows)-1); return m, nil }},
		{Binding: bind("enter", "go", "enter"), help: "go to the agent (closes)", offered: agentRow,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				if row, ok := m.selected(); ok && row.Name != "" {
					return m.goTo(row)
				}
				return m, nil
			}},
		{Binding: bind("s", "ship", "s"), help: "ship: commit all, merge, remove the worktree (owt ship)", offered: agentRow, do: agentVerb},
		{Binding: bind("m", "merge", "m"), help: "merge its commits, remove the worktree (owt merge)", offered: agentRow, do: agentVerb},
		{Binding: bind("d", "diff", "d"), help: "review its diff (owt diff NAME)", offered: agentRow, do: agentVerb},
		{Binding: bind("x", "delete", "x"), help: "delete; asks twice before losing work (owt delete)", offered: agentRow, do: agentVerb},
		{Binding: bind("i", "message", "i"), help: "type a message to the agent (owt send)", offered: agentRow, do: agentVerb},
		{Binding: bind("a", "dismiss", "a"), help: "dismiss its escalated reactions: you handle them (owt dismiss)",
			offered: func(m *ctl) bool { row, ok := m.selected(); return ok && localAgentRow(m) && m.needsDismiss(row) },
			do: func(m *ctl, k tea.KeyMsg) (tea.Model, tea.Cmd) {
				row, ok := m.selected()
				if ok && row.IsRemote() {
					return refuseRemote(m, row, k.String())
				}
				return m.dismiss(row, ok)
			}},
		{Binding: bind("R", "resolve", "R"), help: "let the agent resolve its conflicts with the base in its worktree; asks first (owt resolve)",
			offered: func(m *ctl) bool { row, ok := m.selected(); return ok && localAgentRow(m) && m.resolvable(row) },
			do: func(m *ctl, k tea.KeyMsg) (tea.Model, tea.Cmd) {
				row, ok := m.selected()
				if ok && row.IsRemote() {
					return refuseRemote(m, row, k.String())
				}
				return m.resolve(row, ok)
			}},
		{Binding: bind("r", "retry", "r"), help: "retry its run task (owt run retry)", offered: taskRow, do: taskVerb},
		{Binding: bind("K", "skip", "K"), help: "skip its run task; asks first (owt run skip)", offered: taskRow, do: taskVerb},
		{Binding: bind("p", "pause run", "p"), help: "pause its run (owt run pause)", offered: taskRow, do: taskVerb},
		{Binding: bind("/", "filter", "/"), help: "filter",
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { m.mode = filtering; return m, nil }},
		{Binding: bind("tab", "repos", "tab"), help: "this repo / all repos",
			active: func(m *ctl) bool { return m.repo != "" },
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				m.all = !m.all
				m.queueSig = ""
				m.reload()
				return m, m.background()
			}},
		{Binding: bind("?", "help", "?"),
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { m.mode = helping; return m, nil }},
		{Binding: bind("q", "close", "q", "esc"), helpKeys: "q / Esc", help: "close",
			do: func(m *ctl, k tea.KeyMsg) (tea.Model, tea.Cmd) {
				if m.filter != "" && k.String() == "esc" {
					m.filter = ""
					m.applyFilter()
					return m, nil
				}
				return m, tea.Quit
			}},
	}
}

func verbName(k string) string {
	return map[string]string{"s": "ship", "m": "merge", "x": "delete", "d": "review", "i": "message"}[k]
}

// diffKeys is the diff review's key table: the file list, and one file's
// diff once open.
func diffKeys() []action {
	listing := func(m *ctl) bool { return !m.diff.open }
	reading := func(m *ctl) bool { return m.diff.open }
	page := func(m *ctl) int { return max(1, m.height-4) }
	land := func(m *ctl, k tea.KeyMsg) (tea.Model, tea.Cmd) {
		m.mode = busy
		rec, ship := m.diff.rec, k.String() == "s"
		return m, func() tea.Msg {
			q, err := landQuestion(m.desk, rec, ship)
			if err != nil {
				return verbMsg{err: err}
			}
			return askMsg{q}
		}
	}
	comment := func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
		m.typeFor = m.diff.rec
		m.input.SetValue(m.commentPrefix())
		m.input.CursorEnd()
		m.input.Focus()
		m.mode = typing
		return m, nil
	}
	return []action{
		{Binding: bind("↑↓", "move", "up", "k"), active: listing,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { m.diff.sel = max(m.diff.sel-1, 0); return m, nil }},
		{Binding: bind("", "", "down", "j"), active: listing,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				m.diff.sel = min(m.diff.sel+1, max(0, len(m.diff.files)-1))
				return m, nil
			}},
		{Binding: bind("enter", "open", "enter"), active: listing,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { return m, m.loadFile() }},
		{Binding: bind("↑↓", "pgup/pgdn scroll", "up", "k"), active: reading,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { m.diff.top = max(m.diff.top-1, 0); return m, nil }},
		{Binding: bind("", "", "down", "j"), active: reading,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				m.diff.top = min(m.diff.top+1, max(0, len(m.diff.lines)-page(m)))
				return m, nil
			}},
		{Binding: bind("", "", "pgdown", " ", "f"), active: reading,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				m.diff.top = min(m.diff.top+page(m), max(0, len(m.diff.lines)-page(m)))
				return m, nil
			}},
		{Binding: bind("", "", "pgup", "b"), active: reading,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				m.diff.top = max(m.diff.top-page(m), 0)
				return m, nil
			}},
		{Binding: bind("", "", "home", "g"), active: reading,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { m.diff.top = 0; return m, nil }},
		{Binding: bind("", "", "end", "G"), active: reading,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				m.diff.top = max(0, len(m.diff.lines)-page(m))
				return m, nil
			}},
		{Binding: bind("n/p", "file", "n", "p"),
			do: func(m *ctl, k tea.KeyMsg) (tea.Model, tea.Cmd) {
				d := m.diff
				if k.String() == "n" {
					d.sel = min(d.sel+1, max(0, len(d.files)-1))
				} else {
					d.sel = max(d.sel-1, 0)
				}
				if d.open {
					return m, m.loadFile()
				}
				return m, nil
			}},
		{Binding: bind("s", "ship", "s"), do: land},
		{Binding: bind("m", "merge", "m"), do: land},
		{Binding: bind("i", "comment", "i"), active: listing, do: comment},
		{Binding: bind("i", "comment on line", "i"), active: reading, do: comment},
		{Binding: bind("esc", "back", "esc", "q"), active: listing,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { return m.closeDiff() }},
		{Binding: bind("esc", "files", "esc", "q"), active: reading,
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { m.diff.open = false; return m, nil }},
	}
}

// filterKeys is the filter line's key table; any other key is typed into
// the filter.
func filterKeys() []action {
	return []action{
		{Binding: bind("Enter", "keep", "enter"),
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { m.mode = browsing; return m, nil }},
		{Binding: bind("Esc", "clear", "esc"),
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { m.filter, m.mode = "", browsing; return m, nil }},
		{Binding: bind("", "", "backspace"),
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				if r := []rune(m.filter); len(r) > 0 {
					m.filter = string(r[:len(r)-1])
				}
				return m, nil
			}},
	}
}

// typingKeys is the key table of a message or a comment being typed; any
// other key goes to the text field.
func typingKeys() []action {
	return []action{
		{Binding: bind("Enter", "send", "enter"), do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { return m.send() }},
		{Binding: bind("Esc", "cancel", "esc"),
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				m.mode, m.typeFor = m.back(), nil
				m.status, m.failed = "nothing was sent", false
				return m, nil
			}},
	}
}

// inline is a text line's hints: "(Enter send, Esc cancel)".
func (m *ctl) inline(table []action) string { return "(" + strings.Join(m.hints(table), ", ") + ")" }

// questionKeys is a confirmation's key table (a refused question has no
// answer: any key goes back).
func questionKeys() []action {
	return []action{
		{Binding: bind("[y]", "yes", "y", "Y"),
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) {
				q := m.ask
				if q.next != nil {
					m.ask = q.next
					return m, nil
				}
				m.ask, m.mode = nil, busy
				m.status, m.failed = q.yes+" …", false
				return m, func() tea.Msg { return q.do() }
			}},
		{Binding: bind("[n]", "no (Esc)", "n", "N", "esc", "q"),
			do: func(m *ctl, _ tea.KeyMsg) (tea.Model, tea.Cmd) { return m.declined() }},
	}
}

// declined closes the question: nothing was changed.
func (m *ctl) declined() (tea.Model, tea.Cmd) {
	m.ask, m.mode = nil, m.back()
	m.status, m.failed = "nothing was changed", false
	return m, nil
}

// helpView is the ? screen: the board's keys, from its table. Lines too
// long for the popup wrap between words when the whole still fits its
// height; otherwise each keeps its first words.
func (m *ctl) helpView() []string {
	lines := append(helpLines(browseKeys()), "",
		"Sections: NEEDS YOU, READY TO SHIP (queue order), IN FLIGHT, QUEUED, ENDED, RECENT, BACKGROUND (the memory's last consolidation).")
	var wrapped []string
	for _, l := range lines {
		wrapped = append(wrapped, wrapWords(l, m.width, 10)...)
	}
	if len(wrapped)+4 <= m.height {
		lines = wrapped
	}
	out := []string{m.paint(sgrBold, "owt control — keys"), ""}
	out = append(out, lines...)
	return append(out, "", "Press any key.")
}
