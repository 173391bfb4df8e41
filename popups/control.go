package popups

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Control is the Alt+o popup: every agent and run task as a decision list
// (NEEDS YOU, READY TO SHIP, IN FLIGHT, QUEUED, RECENT), live, with a verb
// on every row. Each verb calls the core the matching owt command calls
// (internal/control); the popup only shows and asks.
func Control(tm *tmux.Client, s Screen) error {
	h, dir := here(tm)
	repo := ""
	if w, err := workspace.Open(dir, tm); err == nil {
		repo = w.Repo.Root
	}
	m := newControl(newLiveDesk(tm, h), repo)
	m.pal = themeOf(tm, s)
	m.reload()
	return finish(s, runProgram(s, m))
}

// Diff is `owt diff NAME`: the diff review of one worktree of the repo the
// pane is in, on its own.
func Diff(tm *tmux.Client, s Screen, name string) error {
	h, dir := here(tm)
	w, err := openWorkspace(dir, tm)
	if err != nil {
		return finish(s, err)
	}
	rec, err := w.Get(name)
	if err != nil {
		return finish(s, err)
	}
	m := newControl(newLiveDesk(tm, h), w.Repo.Root)
	m.pal = themeOf(tm, s)
	m.reload()
	m.standaloneDiff = true
	m.initCmd = m.openDiff(rec) // the file list loads when the program starts
	return finish(s, runProgram(s, m))
}

func runProgram(s Screen, m *ctl) error {
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithInput(s.In), tea.WithOutput(s.Out))
	if _, err := p.Run(); err != nil {
		return fmt.Errorf("control popup: %w", err)
	}
	return m.exitErr
}

// refreshEvery is how often the board is read again from the records,
// runs and tmux options; the selected row's git figures are reused for
// detailTTL.
const (
	refreshEvery = time.Second
	detailTTL    = 3 * time.Second
	statsDelay   = 150 * time.Millisecond // after the first frame
)

type mode int

const (
	browsing mode = iota
	filtering
	typing
	confirming
	helping
	busy
	reviewing
)

// ctl is the control popup's state.
type ctl struct {
	// initCmd is work to start with the program (owt diff's file list).
	initCmd tea.Cmd

	desk    desk
	repo    string  // the repo the popup was opened in ("" outside one)
	all     bool    // every repo (Tab)
	pal     palette // the colours it draws in (themeOf)
	snap    control.Snapshot
	board   control.Board
	rows    []control.Row // the board's rows after the filter
	cursor  int
	width   int
	height  int
	mode    mode
	filter  string
	input   textinput.Model
	typeFor *state.Record
	ask     *question
	status  string // the last verb's outcome
	failed  bool
	exitErr error

	queues    map[string]land.Queue
	queueSig  string
	statsBusy bool
	// refreshedFor is the status time each worktree's figures were last
	// refreshed for (repo NUL name).
	refreshedFor map[state.Key]time.Time
	detail       map[detailID]detail

	diff           *diffView
	standaloneDiff bool
}

// question is a confirmation inside the popup: tmux cannot stack a popup
// on a popup, so it replaces the list until answered. next, when set, is
// asked after a yes (the second yes before losing work).
type question struct {
	title string
	body  []string
	yes   string
	// refused: there is nothing to say yes to; any key closes it.
	refused bool
	do      func() tea.Msg
	next    *question
}

type detail struct {
	text string
	at   time.Time
}

func newControl(d desk, repo string) *ctl {
	in := textinput.New()
	in.CharLimit = 4000
	return &ctl{
		desk: d, repo: repo, all: repo == "", pal: paletteNamed("dark-ansi"),
		width: 80, height: 24, input: in,
		detail: map[detailID]detail{},
	}
}

// Messages of the popup's background work.
type (
	tickMsg   struct{}
	loadedMsg struct{ snap control.Snapshot }
	statsMsg  struct{}
	queueMsg  struct {
		sig string
		q   map[string]land.Queue
	}
	detailMsg struct {
		key  detailID
		text string
	}
	verbMsg struct {
		text string
		err  error
		quit bool
		gone bool // the worktree is gone: its diff review closes
	}
)

func (m *ctl) scope() string {
	if m.all {
		return ""
	}
	return m.repo
}

// reload reads the board now (the first frame, and after a verb).
func (m *ctl) reload() {
	snap, err := m.desk.Load(m.scope())
	if err != nil {
		m.status, m.failed = err.Error(), true
		return
	}
	m.apply(snap)
}

func (m *ctl) apply(snap control.Snapshot) {
	var keep control.Row
	if sel, ok := m.selected(); ok {
		keep = sel
	}
	m.snap = snap
	m.snap.Queue = m.queues // the queue order, worked out once in the background
	m.board = m.snap.Board()
	m.applyFilter()
	m.follow(keep)
}

func (m *ctl) load() tea.Cmd {
	scope := m.scope()
	return func() tea.Msg {
		snap, err := m.desk.Load(scope)
		if err != nil {
			return verbMsg{err: err}
		}
		return loadedMsg{snap}
	}
}

func tick() tea.Cmd { return tea.Tick(refreshEvery, func(time.Time) tea.Msg { return tickMsg{} }) }

func (m *ctl) Init() tea.Cmd {
	return tea.Batch(tick(), tea.Tick(statsDelay, func(time.Time) tea.Msg { return statsMsg{} }), m.initCmd)
}

// background starts the git work the board needs: figures of worktrees
// whose status changed since they were computed, the merge queue when the
// finished set changed, and the selected row's detail.
func (m *ctl) background() tea.Cmd {
	var cmds []tea.Cmd
	if !m.statsBusy {
		// Each worktree's figures are refreshed once per status change:
		// one that stays stale (a cache that cannot be written, a status
		// time ahead of the clock) is not refreshed again and again.
		var stale []*state.Record
		for _, r := range m.snap.Stale {
			key := r.Key()
			if !m.refreshedFor[key].Equal(r.StatusSince) {
				if m.refreshedFor == nil {
					m.refreshedFor = map[state.Key]time.Time{}
				}
				m.refreshedFor[key] = r.StatusSince
				stale = append(stale, r)
			}
		}
		if len(stale) > 0 {
			m.statsBusy = true
			cmds = append(cmds, func() tea.Msg { m.desk.RefreshStats(stale); return statsMsg{} })
		}
	}
	if sig := m.readySignature(); sig != m.queueSig {
		m.queueSig = sig
		recs := m.snap.Records
		cmds = append(cmds, func() tea.Msg {
			return queueMsg{sig: sig, q: m.desk.Queues(recs)}
		})
	}
	cmds = append(cmds, m.detailCmd())
	return tea.Batch(cmds...)
}

// readySignature changes when the set of finished worktrees with work
// changes: that is when the merge queue must be computed again.
func (m *ctl) readySignature() string {
	var b strings.Builder
	for _, r := range m.board.Rows {
		if r.IsAgent() && (r.Section == control.ReadyToShip || strings.HasPrefix(r.Why, "conflicts with")) {
			fmt.Fprintf(&b, "%s/%s@%d+%d;", r.Repo, r.Name, r.Ahead, r.Dirty)
		}
	}
	return b.String()
}

func (m *ctl) detailCmd() tea.Cmd {
	row, ok := m.selected()
	if !ok || !row.IsAgent() {
		return nil
	}
	key := detailKey(row)
	if d, ok := m.detail[key]; ok && time.Since(d.at) < detailTTL {
		return nil
	}
	m.detail[key] = detail{text: m.detail[key].text, at: time.Now()} // one at a time per row
	if row.IsRemote() {
		// Its worktree is on the host: the figures are the host's own,
		// from its list, never git's here about a path that is not here.
		it, ok := m.remoteItem(row)
		if !ok {
			return nil
		}
		text := fmt.Sprintf("%s → %s on %s: %d ahead, %d behind, +%d -%d", it.Branch, it.Base, it.Host, it.Ahead, it.Behind, it.Insertions, it.Deletions)
		if it.Dirty > 0 {
			text += fmt.Sprintf(", %d uncommitted", it.Dirty)
		}
		if it.Missing {
			text = fmt.Sprintf("worktree missing on %s: %s", it.Host, it.Path)
		}
		if it.Unreachable {
			text += fmt.Sprintf(" (as last seen: %s is unreachable)", it.Host)
		}
		return func() tea.Msg { return detailMsg{key: key, text: text} }
	}
	rec := m.record(row)
	if rec == nil {
		return nil
	}
	return func() tea.Msg {
		st := m.desk.RefreshStats([]*state.Record{rec})[rec.Key()]
		text := fmt.Sprintf("%s → %s: %d ahead, %d behind, +%d -%d", rec.Branch, rec.Base, st.Ahead, st.Behind, st.Insertions, st.Deletions)
		if st.Dirty > 0 {
			text += fmt.Sprintf(", %d uncommitted", st.Dirty)
		}
		if st.Missing {
			text = "worktree missing: " + rec.Path
		}
		return detailMsg{key: key, text: text}
	}
}

// remoteItem is the host's list entry of a row of an agent on a host.
func (m *ctl) remoteItem(row control.Row) (lifecycle.Item, bool) {
	for _, it := range m.snap.Items {
		if it.Host == row.Host && it.Name == row.Name && it.Repo == row.Repo {
			return it, true
		}
	}
	return lifecycle.Item{}, false
}

func (m *ctl) record(row control.Row) *state.Record {
	if row.IsRemote() {
		// An agent on a host stands in as NAME@HOST (standIn): the desk
		// runs its verbs there.
		if it, ok := m.remoteItem(row); ok {
			return standIn(row.Repo, it)
		}
		return nil
	}
	for _, r := range m.snap.Records {
		if r.Repo == row.Repo && r.Name == row.Name {
			return r
		}
	}
	return nil
}

func (m *ctl) applyFilter() {
	m.rows = m.rows[:0]
	f := strings.ToLower(m.filter)
	for _, r := range m.board.Rows {
		if f == "" || strings.Contains(strings.ToLower(r.Name+" "+r.Host+" "+r.TaskID+" "+r.Task+" "+r.Repo+" "+r.Event), f) {
			m.rows = append(m.rows, r)
		}
	}
}

// follow keeps the cursor on the row it was on as rows move between sections.
func (m *ctl) follow(prev control.Row) {
	for i, r := range m.rows {
		if !r.Section.IsLog() && r.Repo == prev.Repo && r.Name == prev.Name && r.TaskID == prev.TaskID && prev.Name+prev.TaskID != "" {
			m.cursor = i
			return
		}
	}
	m.cursor = min(m.cursor, max(0, len(m.rows)-1))
}

func (m *ctl) selected() (control.Row, bool) {
	if m.cursor < 0 || m.cursor >= len(m.rows) {
		return control.Row{}, false
	}
	return m.rows[m.cursor], true
}

func (m *ctl) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case tickMsg:
		return m, tea.Batch(tick(), m.load())
	case loadedMsg:
		m.apply(msg.snap)
		return m, m.background()
	case statsMsg:
		m.statsBusy = false
		return m, m.load()
	case queueMsg:
		if msg.sig == m.queueSig {
			m.queues = msg.q
			m.apply(m.snap)
		}
		return m, nil
	case detailMsg:
		m.detail[msg.key] = detail{text: msg.text, at: time.Now()}
		return m, nil
	case verbMsg:
		return m.verbDone(msg)
	case askMsg:
		m.ask, m.mode, m.status = msg.q, confirming, ""
		return m, nil
	case diffMsg:
		return m.diffLoaded(msg)
	case tea.KeyMsg:
		return m.key(msg)
	}
	return m, nil
}

func (m *ctl) verbDone(msg verbMsg) (tea.Model, tea.Cmd) {
	if m.mode == busy {
		m.mode = browsing
		if m.diff != nil {
			m.mode = reviewing
		}
	}
	if msg.err != nil {
		m.status, m.failed = msg.err.Error(), true
	} else if msg.text != "" {
		m.status, m.failed = msg.text, false
	}
	if msg.gone && m.diff != nil {
		m.diff, m.mode = nil, browsing
		if m.standaloneDiff {
			return m, tea.Quit
		}
	}
	if msg.quit {
		return m, tea.Quit
	}
	m.reload()
	return m, m.background()
}

func (m *ctl) key(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if k.String() == "ctrl+c" {
		return m, tea.Quit
	}
	// Keys typed quickly arrive as one message of several runes: outside a
	// text field each is a key of its own.
	if k.Type == tea.KeyRunes && len(k.Runes) > 1 && !k.Paste && m.mode != typing && m.mode != filtering {
		var cmds []tea.Cmd
		for _, r := range k.Runes {
			_, cmd := m.key(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: k.Alt})
			cmds = append(cmds, cmd)
		}
		return m, tea.Batch(cmds...)
	}
	switch m.mode {
	case busy:
		return m, nil
	case helping:
		m.mode = browsing
		return m, nil
	case confirming:
		return m.answer(k)
	case typing:
		return m.typingKey(k)
	case filtering:
		return m.filterKey(k)
	case reviewing:
		return m.diffKey(k)
	}
	return m.browseKey(k)
}

func (m *ctl) browseKey(k tea.KeyMsg) (tea.Model, tea.Cmd) { return m.dispatch(browseKeys(), k) }

func (m *ctl) filterKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if a, ok := m.find(filterKeys(), k); ok {
		a.do(m, k)
	} else if k.Type == tea.KeyRunes || k.Type == tea.KeySpace {
		m.filter += string(k.Runes)
	}
	m.applyFilter()
	m.cursor = min(m.cursor, max(0, len(m.rows)-1))
	return m, nil
}

// goTo moves the client that opened the popup to the agent's session
// (recreating it on the worktree if tmux lost it), and closes the popup.
func (m *ctl) goTo(row control.Row) (tea.Model, tea.Cmd) {
	rec := m.record(row)
	if rec == nil {
		m.status, m.failed = row.Name+" has no worktree (yet)", true
		return m, nil
	}
	m.mode = busy
	return m, func() tea.Msg {
		if err := m.desk.GoTo(rec); err != nil {
			return verbMsg{err: err}
		}
		return verbMsg{quit: true}
	}
}

// agentVerb starts ship, merge, delete, diff or message on an agent row.
func (m *ctl) agentVerb(v string, row control.Row) (tea.Model, tea.Cmd) {
	rec := m.record(row)
	if rec == nil {
		m.status, m.failed = row.Name+" vanished", true
		return m, nil
	}
	switch v {
	case "i":
		m.typeFor = rec
		m.input.SetValue("")
		m.input.Focus()
		m.mode = typing
		return m, textinput.Blink
	case "d":
		return m, m.openDiff(rec)
	}
	m.mode = busy
	m.status, m.failed = "checking "+rec.Name+" …", false
	return m, func() tea.Msg { return m.prepare(v, rec) }
}

// askMsg carries a question worked out in the background.
type askMsg struct{ q *question }

// prepare works out the confirmation of a destructive verb: the check
// report, and the same rules as Alt+m and Alt+d.
func (m *ctl) prepare(v string, rec *state.Record) tea.Msg {
	var q *question
	var err error
	if isRemote(rec) {
		// As its host says now: its worktree, base and creation, which
		// the board's stream does not carry.
		if rec, err = m.desk.Get(rec.Repo, rec.Name); err != nil {
			return verbMsg{err: err}
		}
	}
	if v == "x" {
		q, err = deleteQuestion(m.desk, rec)
	} else {
		q, err = landQuestion(m.desk, rec, v == "s")
	}
	if err != nil {
		return verbMsg{err: err}
	}
	return askMsg{q}
}

func (m *ctl) answer(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.ask.refused {
		return m.declined()
	}
	return m.dispatch(questionKeys(), k)
}

// back is the mode a question or message returns to.
func (m *ctl) back() mode {
	if m.diff != nil {
		return reviewing
	}
	return browsing
}

func (m *ctl) typingKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if a, ok := m.find(typingKeys(), k); ok {
		return a.do(m, k)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
}

// send delivers what was typed to the agent, by owt send's core.
func (m *ctl) send() (tea.Model, tea.Cmd) {
	text := strings.TrimSpace(m.input.Value())
	rec := m.typeFor
	if text == "" || rec == nil {
		m.mode = m.back()
		return m, nil
	}
	m.mode, m.typeFor = busy, nil
	m.status, m.failed = "sending to "+rec.Name+" …", false
	return m, func() tea.Msg {
		if err := m.desk.Send(rec, text); err != nil {
			return verbMsg{err: err}
		}
		return verbMsg{text: "sent to " + rec.Name}
	}
}

// dismiss is a: the row's escalated reactions stop needing the user, by
// the same core as owt dismiss NAME.
func (m *ctl) dismiss(row control.Row, ok bool) (tea.Model, tea.Cmd) {
	var rec *state.Record
	if ok && row.IsAgent() {
		rec = m.record(row)
	}
	if rec == nil || !rec.NeedsUser() {
		m.status, m.failed = "that row has no reaction that needs you to dismiss", true
		return m, nil
	}
	m.mode = busy
	return m, func() tea.Msg {
		names, err := m.desk.Dismiss(rec)
		if err != nil {
			return verbMsg{err: err}
		}
		return verbMsg{text: "dismissed " + strings.Join(names, ", ") + " for " + rec.Name}
	}
}

// taskVerb is r (retry), K (skip) or p (pause the task's run): the same
// core as owt run retry|skip|pause.
func (m *ctl) taskVerb(v string, row control.Row) (tea.Model, tea.Cmd) {
	do := m.taskVerbDo(v, row)
	if v == "K" {
		// Skip cannot be taken back (a skipped task is never retried):
		// it asks first, as every destructive verb does.
		m.ask, m.mode, m.status = &question{
			title: fmt.Sprintf("Skip task %s of run %s?", row.TaskID, row.Run),
			body: []string{"It will not run; its dependents go on as if it were done.",
				"A running agent is left alone. This cannot be undone."},
			yes: "skipping " + row.TaskID, do: do,
		}, confirming, ""
		return m, nil
	}
	m.mode = busy
	return m, do
}

func (m *ctl) taskVerbDo(v string, row control.Row) func() tea.Msg {
	return func() tea.Msg {
		if v == "p" {
			changed, err := m.desk.PauseRun(row.Run)
			switch {
			case err != nil:
				return verbMsg{err: err}
			case !changed:
				return verbMsg{text: "run " + row.Run + " is already paused ('owt run resume " + row.Run + "' goes on)"}
			}
			return verbMsg{text: "run " + row.Run + ": paused"}
		}
		verb := map[string]string{"r": "retry", "K": "skip"}[v]
		evs, err := m.desk.TaskVerb(row.Run, verb, row.TaskID)
		if err != nil {
			return verbMsg{err: err}
		}
		words := []string{}
		for _, ev := range evs {
			words = append(words, strings.TrimSpace(ev.Event+" "+ev.Task))
		}
		return verbMsg{text: "run " + row.Run + ": " + strings.Join(words, ", ")}
	}
}

// detailID names a row's detail: an agent here and one of the same name
// on a host are two.
type detailID struct {
	state.Key
	Host string
}

func detailKey(row control.Row) detailID {
	return detailID{state.Key{Repo: row.Repo, Name: row.Name}, row.Host}
}
