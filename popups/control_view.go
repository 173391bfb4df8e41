package popups

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/termtheme"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// paint wraps s in the palette's style for r (nothing under NO_COLOR).
func (m *ctl) paint(r termtheme.Role, s string) string { return m.pal.Paint(r, s) }

var sectionColor = map[control.Section]termtheme.Role{
	control.NeedsYou: sgrRed, control.ReadyToShip: sgrReady, control.InFlight: sgrFlight,
	control.Queued: sgrQueued, control.Ended: sgrBold, control.Recent: sgrBold, control.Background: sgrBold,
}

func (m *ctl) View() string {
	switch m.mode {
	case confirming:
		return m.fit(m.questionView())
	case helping:
		return m.fit(m.helpView())
	case reviewing:
		return m.fit(m.diffView())
	}
	if m.diff != nil && (m.mode == busy || m.mode == typing) {
		return m.fit(m.diffView())
	}
	return m.fit(m.listView())
}

// fit cuts every line to the popup's width, between words, and the whole
// to its height.
func (m *ctl) fit(lines []string) string {
	if len(lines) > m.height {
		lines = lines[:m.height]
	}
	for i, l := range lines {
		lines[i] = elide(l, m.width)
	}
	return strings.Join(lines, "\n")
}

// narrow: the popup is too narrow for every column (a phone).
func (m *ctl) narrow() bool { return m.width < narrowBelow }

func (m *ctl) header() string {
	title := "owt control — " + m.board.Title
	if m.repo != "" && !m.narrow() {
		title += m.paint(sgrDim, "  (tab: "+map[bool]string{true: "this repo", false: "all repos"}[!m.all]+")")
	}
	if len(m.board.Progress) > 0 {
		title += "  " + strings.Join(m.board.Progress, "  ")
	}
	return m.paint(sgrBold, title)
}

// listView is the board: sections with their rows, the selected row's
// detail, the last verb's outcome and the keys.
func (m *ctl) listView() []string {
	body, cursorLine := m.sectionLines()
	footer := m.footer()
	room := max(1, m.height-1-len(footer))
	start := 0
	if cursorLine >= room {
		start = cursorLine - room + 1
	}
	end := min(len(body), start+room)
	out := []string{m.header()}
	out = append(out, body[start:end]...)
	for len(out) < m.height-len(footer) {
		out = append(out, "")
	}
	return append(out, footer...)
}

func (m *ctl) sectionLines() ([]string, int) {
	var lines []string
	cursorLine := 0
	nameW, most := 8, 28
	if m.narrow() {
		most = max(8, m.width/2-6) // the rest for why it is here
	}
	for _, r := range m.rows {
		nameW = max(nameW, min(most, len([]rune(rowName(r)))))
	}
	now := time.Now()
	for i, r := range m.rows {
		if i == 0 || m.rows[i-1].Section != r.Section {
			n := 0
			for _, o := range m.rows[i:] {
				if o.Section == r.Section {
					n++
				}
			}
			lines = append(lines, m.paint(sectionColor[r.Section], fmt.Sprintf("%s (%d)", r.Section, n)))
		}
		line := m.rowLine(r, nameW, now)
		if i == m.cursor {
			cursorLine = len(lines)
			line = "> " + line
			if m.pal.Colored() {
				line = m.paint(sgrCursor, ansi.Strip(line))
			}
		} else {
			line = "  " + line
		}
		lines = append(lines, line)
		if i == m.cursor && r.IsAgent() && r.StatusWhy != "" {
			// What set the selected agent's status: owt why's first line.
			lines = append(lines, "    "+m.paint(sgrDim, "why: "+r.StatusWhy))
			cursorLine = len(lines) - 1
		}
	}
	if len(m.rows) == 0 {
		if m.filter != "" {
			lines = append(lines, "  nothing matches /"+m.filter)
		} else {
			lines = append(lines, "  no agents yet: start one with Alt+c or owt new \"TASK\"")
		}
	}
	return lines, cursorLine
}

func rowName(r control.Row) string {
	switch {
	case r.Section.IsLog():
		return r.Name
	case r.Host != "":
		return r.Name + "@" + r.Host
	case r.Name != "":
		return r.Name
	case r.TaskID == "":
		return "run " + r.Run // the run itself (paused by owt)
	default:
		return r.Run + "/" + r.TaskID
	}
}

// rowLine is one row: glyph, name, status and age, why it is here, then
// the details of its section. On a narrow popup the status word (the
// glyph says it) and the age are left out, and the details come in by
// priority (why, then the prediction, checks, PR …, repo and task last),
// each whole or not at all, so what shows is never a word cut in two.
func (m *ctl) rowLine(r control.Row, nameW int, now time.Time) string {
	if r.Section.IsLog() {
		what := r.Event
		if r.Event == "message" && r.Run == "" { // agent to agent: "a → b: first line"
			return strings.TrimRight(fmt.Sprintf("%-5s %s: %s", r.Since.Local().Format("15:04"), r.Name, m.paint(sgrDim, r.Why)), " ")
		}
		if r.Run != "" {
			what = "run " + r.Run + ": " + what
		}
		return strings.TrimRight(fmt.Sprintf("%-5s %s %s %s", r.Since.Local().Format("15:04"), what, r.Name, m.paint(sgrDim, r.Why)), " ")
	}
	glyph := status.Glyph(r.Status)
	if r.Name == "" {
		glyph = "·"
	}
	name := rowName(r)
	if r.Spawner != "" {
		name = "└ " + name // spawned: its spawner's row says by whom
	}
	if n := []rune(name); len(n) > nameW {
		name = string(n[:nameW-1]) + "…"
	}
	head := fmt.Sprintf("%s %-*s %-8s %4s", glyph, nameW, name, r.Status, workspace.Age(now.Sub(r.Since)))
	if m.narrow() {
		head = fmt.Sprintf("%s %-*s", glyph, nameW, name)
	}
	// Each detail with its priority: the lower, the sooner it is given
	// room on a narrow popup.
	type part struct {
		text string
		prio int
	}
	var parts []part
	add := func(prio int, text string) { parts = append(parts, part{text, prio}) }
	if r.Why != "" {
		add(1, m.whyPaint(r))
	}
	if r.Spawner != "" {
		add(6, m.paint(sgrDim, "spawned by "+r.Spawner))
	}
	if r.InPlace {
		add(4, "in place")
	}
	if r.Section == control.ReadyToShip || r.Section == control.InFlight {
		if r.Insertions+r.Deletions > 0 {
			add(5, fmt.Sprintf("+%d -%d", r.Insertions, r.Deletions))
		}
	}
	if r.Prediction != "" && r.Section == control.ReadyToShip {
		sgr := sgrGreen
		if !strings.HasPrefix(r.Prediction, "merges") {
			sgr = sgrRed
		}
		add(2, m.paint(sgr, r.Prediction))
	}
	if r.Checks != "" {
		add(2, "checks "+r.Checks)
	}
	if r.Run != "" && r.Name != "" {
		att := ""
		if r.Attempt > 0 && r.MaxAttempts > 0 {
			att = fmt.Sprintf(" %d/%d", r.Attempt, r.MaxAttempts)
		}
		add(5, fmt.Sprintf("run %s:%s%s", r.Run, r.TaskID, att))
	}
	if r.Sending != "" {
		add(2, m.paint(sgrYellow, "sending "+r.Sending))
	}
	if r.PR != "" {
		add(3, "PR "+r.PR)
	}
	if r.Limits != "" {
		sgr := sgrDim
		if r.LimitsHigh {
			sgr = sgrYellow
		}
		add(5, m.paint(sgr, r.Limits))
	}
	if r.Usage != "" {
		add(6, m.paint(sgrDim, r.Usage))
	}
	if m.all && r.Repo != "" {
		add(7, m.paint(sgrDim, repoName(r.Repo)))
	}
	if r.Task != "" {
		add(8, m.paint(sgrDim, r.Task))
	}
	keep := make([]bool, len(parts))
	if !m.narrow() {
		for i := range keep {
			keep[i] = true // fit cuts the end, between words
		}
	} else {
		room := m.width - 2 - ansi.StringWidth(head) // "> " or "  " before it
		for prio := 1; prio <= 8; prio++ {
			for i, p := range parts {
				if w := 2 + ansi.StringWidth(p.text); p.prio == prio && w <= room {
					keep[i], room = true, room-w
				}
			}
		}
		if len(parts) > 0 && parts[0].prio == 1 {
			keep[0] = true // why it is here, at least its first words
		}
	}
	out := []string{head}
	for i, p := range parts {
		if keep[i] {
			out = append(out, p.text)
		}
	}
	return strings.Join(out, "  ")
}

func (m *ctl) whyPaint(r control.Row) string {
	if r.Section == control.NeedsYou {
		return m.paint(sgrRed, r.Why)
	}
	return r.Why
}

// footer: the selected row's detail (git, for that row only), the last
// outcome, and the keys of the selected row.
func (m *ctl) footer() []string {
	var out []string
	if row, ok := m.selected(); ok && row.IsAgent() {
		if d := m.detail[detailKey(row)]; d.text != "" {
			out = append(out, m.paint(sgrDim, d.text))
		}
	}
	switch {
	case m.mode == typing:
		out = append(out, "message to "+m.typeForName()+" "+m.inline(typingKeys())+":", m.input.View())
		return out
	case m.mode == filtering:
		out = append(out, "/"+m.filter+"█  "+m.inline(filterKeys()))
		return out
	case m.status != "":
		sgr := sgrGreen
		if m.failed {
			sgr = sgrRed
		}
		out = append(out, m.paint(sgr, untrusted.CleanLine(m.status)))
	}
	return append(out, m.wrapKeys(m.hints(browseKeys()))...)
}

func (m *ctl) typeForName() string {
	if m.typeFor == nil {
		return ""
	}
	return m.typeFor.Name
}

// needsDismiss reports whether the row's agent has a reaction that
// escalated to the user (what a dismisses).
func (m *ctl) needsDismiss(row control.Row) bool {
	rec := m.record(row)
	return rec != nil && rec.NeedsUser()
}

// wrapKeys lays key hints out on as many lines as the width needs.
func (m *ctl) wrapKeys(keys []string) []string {
	var lines []string
	cur := ""
	for _, k := range keys {
		if cur != "" && len([]rune(cur))+2+len([]rune(k)) > m.width {
			lines = append(lines, m.paint(sgrDim, cur))
			cur = ""
		}
		if cur != "" {
			cur += "  "
		}
		cur += k
	}
	return append(lines, m.paint(sgrDim, cur))
}

func (m *ctl) questionView() []string {
	q := m.ask
	prompt := strings.Join(m.hints(questionKeys()), "   ")
	if q.refused {
		prompt = "Press any key to go back."
	}
	out := []string{m.paint(sgrBold, q.title), ""}
	room := m.height - len(out) - 2
	var body []string
	for _, l := range q.body {
		body = append(body, wrapWords(untrusted.CleanLine(l), m.width, 2)...)
	}
	if len(body) > room {
		body = append(body[:max(0, room-1)], "…")
	}
	out = append(out, body...)
	return append(out, "", m.paint(sgrBold, prompt))
}
