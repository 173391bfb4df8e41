package popups

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/git"

	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/usage"
)

// fakeDesk is the control popup's world in a test: fixed records, items,
// runs and events, check reports and losses by name, and every verb the
// popup calls written down instead of done.
type fakeDesk struct {
	snap    control.Snapshot
	reports map[string]land.Report
	losses  map[string]lifecycle.Loss
	calls   []string
	told    []string
	review  *land.ReviewResult // a review that refuses every landing not accepted
	// remote are agents on hosts as the desk gets them (NAME@HOST).
	remote map[string]*state.Record
	// statted are the records whose git figures were asked for here.
	statted []string
}

func (d *fakeDesk) Load(string) (control.Snapshot, error) { return d.snap, nil }
func (d *fakeDesk) RefreshStats(recs []*state.Record) map[state.Key]lifecycle.Stats {
	out := map[state.Key]lifecycle.Stats{}
	for _, r := range recs {
		d.statted = append(d.statted, r.Name)
		// As git here says of a path that is not on this machine.
		if strings.Contains(r.Name, "@") {
			out[r.Key()] = lifecycle.Stats{Missing: true}
		}
	}
	return out
}
func (d *fakeDesk) Queues([]*state.Record) map[string]land.Queue { return nil }
func (d *fakeDesk) Get(repo, name string) (*state.Record, error) {
	if r, ok := d.remote[name]; ok && r.Repo == repo {
		return r, nil
	}
	for _, r := range d.snap.Records {
		if r.Repo == repo && r.Name == name {
			return r, nil
		}
	}
	return nil, errors.New("no " + name)
}
func (d *fakeDesk) Check(rec *state.Record) (land.Report, error) { return d.reports[rec.Name], nil }
func (d *fakeDesk) WhatWouldBeLost(rec *state.Record) (lifecycle.Loss, error) {
	return d.losses[rec.Name], nil
}
func (d *fakeDesk) ChangedFiles(rec *state.Record) ([]git.FileChange, error) {
	return []git.FileChange{{Path: rec.Name + ".go", Insertions: 2}, {Path: "notes.txt", Untracked: true}}, nil
}
func (d *fakeDesk) FileDiff(rec *state.Record, f git.FileChange, _ bool) (string, error) {
	return "diff --git a/" + f.Path + " b/" + f.Path + "\n@@ -0,0 +1,2 @@\n+package " + rec.Name + "\n+// more\n", nil
}
func (d *fakeDesk) DiffPager() []string { return nil }
func (d *fakeDesk) GoTo(rec *state.Record) error {
	d.calls = append(d.calls, "goto "+rec.Name)
	return nil
}
func (d *fakeDesk) Land(rec *state.Record, ship bool, accepted *land.ReviewResult) (control.Landed, error) {
	if d.review != nil && accepted == nil {
		d.calls = append(d.calls, fmt.Sprintf("land %s ship=%v: review refused", rec.Name, ship))
		return control.Landed{}, &control.ReviewRefused{Name: rec.Name, Verb: "shipped", Result: *d.review}
	}
	d.calls = append(d.calls, fmt.Sprintf("land %s ship=%v accepted=%v", rec.Name, ship, accepted != nil))
	return control.Landed{ShipResult: land.ShipResult{Result: land.Result{Name: rec.Name, Target: rec.Base}}, Removed: true}, nil
}
func (d *fakeDesk) Delete(rec *state.Record, accept lifecycle.Loss) error {
	d.calls = append(d.calls, fmt.Sprintf("delete %s accepting %s", rec.Name, accept))
	return nil
}
func (d *fakeDesk) Send(rec *state.Record, text string) error {
	d.calls = append(d.calls, "send "+rec.Name+": "+text)
	return nil
}
func (d *fakeDesk) Resolve(rec *state.Record) (string, error) {
	d.calls = append(d.calls, "resolve "+rec.Name)
	return rec.Name + ": merged main", nil
}
func (d *fakeDesk) Dismiss(rec *state.Record) ([]string, error) {
	d.calls = append(d.calls, "dismiss "+rec.Name)
	return []string{"ci-failed"}, nil
}
func (d *fakeDesk) PauseRun(name string) (bool, error) {
	d.calls = append(d.calls, "pause "+name)
	return true, nil
}
func (d *fakeDesk) TaskVerb(runName, verb, id string) ([]run.Event, error) {
	d.calls = append(d.calls, verb+" "+runName+"/"+id)
	return []run.Event{{Event: verb, Task: id}}, nil
}
func (d *fakeDesk) Tell(msg string) { d.told = append(d.told, msg) }

// newFakeDesk is a repo /r/shop with an agent that waits (asker), one
// with a commit to ship (cart), one with uncommitted work (docs), one that
// works (busy), a run g whose task api waits for models, and a shipped
// worktree under RECENT.
func newFakeDesk() *fakeDesk {
	now := time.Now()
	rec := func(name string, st state.Status) *state.Record {
		return &state.Record{Name: name, Repo: "/r/shop", Branch: "feat/" + name, Base: "main",
			Session: "shop_" + name, Path: "/wt/" + name, Status: st, StatusSince: now}
	}
	item := func(name string, st state.Status, ahead, dirty int) lifecycle.Item {
		return lifecycle.Item{Name: name, Repo: "/r/shop", Status: string(st), StatusSince: now, Ahead: ahead, Dirty: dirty}
	}
	p := &run.Plan{Tasks: []run.Task{{ID: "models", Task: "Models"}, {ID: "api", Task: "The API", DependsOn: []string{"models"}}}}
	g := run.NewRun("g", "/r/shop", "main", p, now)
	models, _ := g.Task("models")
	models.State, models.Name, models.Attempt = run.Running, "busy", 1
	d := &fakeDesk{
		reports: map[string]land.Report{
			"cart": {Name: "cart", Branch: "feat/cart", Base: "main", Ahead: 1},
			"docs": {Name: "docs", Branch: "feat/docs", Base: "main", DirtyFiles: []string{"notes.txt"}},
			"asker": {Name: "asker", Branch: "feat/asker", Base: "main", Ahead: 1,
				Conflicts: []land.Overlap{{With: "main", Kind: "base", Files: []string{"README.md"}}}},
		},
		losses: map[string]lifecycle.Loss{"docs": {DirtyFiles: []string{"notes.txt"}}},
	}
	d.snap.Title = "shop"
	for _, r := range []*state.Record{rec("asker", state.Waiting), rec("cart", state.Idle), rec("docs", state.Idle), rec("busy", state.Working)} {
		d.snap.Records = append(d.snap.Records, r)
	}
	d.snap.Items = []lifecycle.Item{item("asker", state.Waiting, 0, 0), item("cart", state.Idle, 1, 0),
		item("docs", state.Idle, 0, 1), item("busy", state.Working, 0, 0)}
	d.snap.Runs = []*run.Run{g}
	d.snap.Events = []control.Event{{At: now.Add(-time.Minute), Repo: "/r/shop", Name: "old", Event: "shipped", Detail: "into main"}}
	return d
}

// popup is a control popup model driven by keys in the test's goroutine:
// every command a key starts runs at once and its message goes back in,
// as bubbletea would do, except timers (refresh, cursor blink).
type popup struct {
	t    *testing.T
	m    *ctl
	d    *fakeDesk
	quit bool
}

func newPopup(t *testing.T) *popup {
	d := newFakeDesk()
	m := newControl(d, "/r/shop")
	m.pal, m.width, m.height = paletteNamed("none"), 120, 40
	m.reload()
	return &popup{t: t, m: m, d: d}
}

func (p *popup) press(keys ...string) {
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "down":
			msg = tea.KeyMsg{Type: tea.KeyDown}
		case "backspace":
			msg = tea.KeyMsg{Type: tea.KeyBackspace}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		p.feed(msg, 0)
	}
}

func (p *popup) feed(msg tea.Msg, depth int) {
	switch msg := msg.(type) {
	case nil:
	case tea.QuitMsg:
		p.quit = true
	case tea.BatchMsg:
		for _, c := range msg {
			p.run(c, depth)
		}
	case tickMsg:
	default:
		_, cmd := p.m.Update(msg)
		p.run(cmd, depth+1)
	}
}

func (p *popup) run(cmd tea.Cmd, depth int) {
	if cmd == nil {
		return
	}
	require.Less(p.t, depth, 20, "commands that never settle")
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		p.feed(msg, depth)
	case <-time.After(50 * time.Millisecond): // a timer: not the model's work
	}
}

func (p *popup) screen() string { return p.m.View() }

// sel moves the cursor to the row naming name, from the top.
func (p *popup) sel(name string) {
	p.press("g")
	re := regexp.MustCompile(`\s` + regexp.QuoteMeta(name) + `(\s|$)`)
	for range p.m.rows {
		if row, ok := p.m.selected(); ok && re.MatchString(" "+rowName(row)+" ") {
			return
		}
		p.press("j")
	}
	p.t.Fatalf("no row %s:\n%s", name, p.screen())
}

var sectionHead = regexp.MustCompile(`^(NEEDS YOU|READY TO SHIP|IN FLIGHT|QUEUED|ENDED|RECENT) \(\d+\)`)

// sectionOf is the section the row naming name is drawn under.
func sectionOf(screen, name string) string {
	cur := ""
	for _, l := range strings.Split(screen, "\n") {
		if m := sectionHead.FindStringSubmatch(l); m != nil {
			cur = m[1]
		} else if regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(name) + `(\s|$)`).MatchString(l) {
			return cur
		}
	}
	return ""
}

func TestControlSortsRowsIntoSections(t *testing.T) {
	p := newPopup(t)
	s := p.screen()
	require.Contains(t, s, "owt control — shop")
	var order []string
	for _, l := range strings.Split(s, "\n") {
		if m := sectionHead.FindStringSubmatch(l); m != nil {
			order = append(order, m[1])
		}
	}
	require.Equal(t, []string{"NEEDS YOU", "READY TO SHIP", "IN FLIGHT", "QUEUED", "RECENT"}, order, s)
	for name, want := range map[string]string{"asker": "NEEDS YOU", "cart": "READY TO SHIP", "docs": "READY TO SHIP",
		"busy": "IN FLIGHT", "g/api": "QUEUED", "old": "RECENT"} {
		require.Equal(t, want, sectionOf(s, name), "%s\n%s", name, s)
	}
	require.Contains(t, s, "run g: 0/2 done")
}

func TestControlFilterKeepsMatchingRowsAndEscClearsIt(t *testing.T) {
	p := newPopup(t)
	p.press("/", "c", "a", "r")
	require.Contains(t, p.screen(), "/car█  (Enter keep, Esc clear)")
	p.press("enter")
	s := p.screen()
	require.Equal(t, "READY TO SHIP", sectionOf(s, "cart"), s)
	require.Empty(t, sectionOf(s, "docs"), s)
	require.Empty(t, sectionOf(s, "asker"), s)

	p.press("/", "z", "z")
	require.Contains(t, p.screen(), "nothing matches /carzz")
	p.press("backspace", "backspace", "enter")
	require.Equal(t, "READY TO SHIP", sectionOf(p.screen(), "cart"))

	// Esc clears a filter first; the popup stays open.
	p.press("esc")
	require.False(t, p.quit)
	require.Equal(t, "NEEDS YOU", sectionOf(p.screen(), "asker"))
	p.press("esc")
	require.True(t, p.quit)
	require.Empty(t, p.d.calls)
}

func TestControlShipAsksThenLandsThroughTheVerbs(t *testing.T) {
	p := newPopup(t)
	p.sel("cart")
	p.press("s")
	s := p.screen()
	require.Contains(t, s, "Commit everything in cart and merge it into main?")
	require.Contains(t, s, "Afterwards the session shop_cart, the worktree and the branch are removed.")
	require.Contains(t, s, "[y] yes   [n] no (Esc)")
	p.press("n")
	require.Contains(t, p.screen(), "nothing was changed")
	require.Empty(t, p.d.calls)

	p.press("m", "y")
	require.Equal(t, []string{"land cart ship=false accepted=false"}, p.d.calls)
	require.Contains(t, p.screen(), "merged cart into main; removed its worktree")
	require.Equal(t, []string{"owt: merged cart into main"}, p.d.told)
}

// With [review] enabled a failing review refuses the landing: the popup
// shows its findings, drawn inert, and asks again; a yes lands despite
// that review.
func TestControlAsksAgainWhenTheReviewFails(t *testing.T) {
	p := newPopup(t)
	p.d.review = &land.ReviewResult{Verdict: land.ReviewFail, Tool: "claude", Findings: []land.Finding{
		{File: untrusted.From("cart.go"), Line: 3, Severity: untrusted.From("high"), Message: untrusted.From("drops the \x1b[2Jtotal")}}}
	p.sel("cart")
	p.press("s", "y")
	s := p.screen()
	require.Contains(t, s, "The AI review fails cart: ship anyway?")
	require.Contains(t, s, "review: fail (claude, 1 finding(s))")
	require.Contains(t, s, "[high] cart.go:3: drops the [2Jtotal")
	require.NotContains(t, s, "\x1b[2J")
	require.Contains(t, s, "Nothing was changed yet.")
	require.Equal(t, []string{"land cart ship=true: review refused"}, p.d.calls)
	p.press("n")
	require.Contains(t, p.screen(), "nothing was changed")
	require.Len(t, p.d.calls, 1)

	p.press("s", "y", "y")
	require.Equal(t, []string{"land cart ship=true: review refused", "land cart ship=true: review refused", "land cart ship=true accepted=true"}, p.d.calls)
	require.Contains(t, p.screen(), "shipped cart into main; removed its worktree")
}

func TestControlRefusesALandingWithBlockersAndChangesNothing(t *testing.T) {
	p := newPopup(t)
	p.sel("asker")
	p.press("m")
	s := p.screen()
	require.Contains(t, s, "Merge asker: refused, nothing changed")
	require.Contains(t, s, "Merge would be refused:")
	require.Contains(t, s, "Press any key to go back.")
	p.press("y")
	require.Contains(t, p.screen(), "nothing was changed")
	require.Empty(t, p.d.calls)
}

func TestControlDeleteAsksTwiceBeforeLosingWork(t *testing.T) {
	p := newPopup(t)
	p.sel("docs")
	p.press("x")
	require.Contains(t, p.screen(), "This would LOSE 1 uncommitted file(s): notes.txt.")
	p.press("y")
	require.Contains(t, p.screen(), "Really lose this work?")
	p.press("n")
	require.Contains(t, p.screen(), "nothing was changed")
	require.Empty(t, p.d.calls)

	p.press("x", "y", "y")
	require.Equal(t, []string{"delete docs accepting 1 uncommitted file(s): notes.txt"}, p.d.calls)
	require.Contains(t, p.screen(), "deleted docs")
}

func TestControlSendsAMessageAndRunsTaskVerbs(t *testing.T) {
	p := newPopup(t)
	p.sel("busy")
	p.press("i")
	require.Contains(t, p.screen(), "message to busy (Enter send, Esc cancel):")
	p.press("never mind", "esc")
	require.Contains(t, p.screen(), "nothing was sent")
	p.press("i", "please add tests", "enter")
	require.Contains(t, p.screen(), "sent to busy")

	// A task row: skip asks first; retry and pause do not.
	p.sel("g/api")
	p.press("K")
	require.Contains(t, p.screen(), "Skip task api of run g?")
	p.press("y", "r", "p")
	require.Equal(t, []string{"send busy: please add tests", "skip g/api", "retry g/api", "pause g"}, p.d.calls)
	require.Contains(t, p.screen(), "run g: paused")
}

// The footer offers the keys of the selected row, a key that is not the
// row's says so, and ? lists every key of the table.
func TestControlKeysComeFromOneTable(t *testing.T) {
	p := newPopup(t)
	footer := func() string {
		lines := strings.Split(p.screen(), "\n")
		return strings.Join(lines[len(lines)-2:], "  ")
	}
	p.sel("cart")
	require.Contains(t, footer(), "enter go  s ship  m merge  d diff  x delete  i message")
	require.NotContains(t, footer(), "r retry")
	p.sel("g/api")
	require.Contains(t, footer(), "r retry  K skip  p pause run")
	require.NotContains(t, footer(), "s ship")
	require.Contains(t, footer(), "tab repos  ? help  q close")
	p.press("s")
	require.Contains(t, p.screen(), "that row has no worktree to ship")
	p.sel("old")
	p.press("r")
	require.Contains(t, p.screen(), "that row is not a run task")

	p.press("?")
	help := p.screen()
	for _, a := range browseKeys() {
		if a.help != "" {
			require.Contains(t, help, a.help, help)
		}
	}
	require.Contains(t, help, "q / Esc   close")
	p.press("x")
	require.NotContains(t, p.screen(), "owt control — keys")
	require.Empty(t, p.d.calls)
}

// d opens the diff review: the files, then one file's diff; each screen's
// footer is its own table's, i comments on the line the review is at, and
// Esc goes back a screen at a time.
func TestControlDiffReviewFilesThenAFile(t *testing.T) {
	p := newPopup(t)
	footer := func() string { lines := strings.Split(p.screen(), "\n"); return lines[len(lines)-1] }
	p.sel("cart")
	p.press("d")
	s := p.screen()
	require.Contains(t, s, "> cart.go  +2 -0")
	require.Contains(t, s, "notes.txt  new, uncommitted")
	require.Equal(t, "↑↓ move  enter open  n/p file  s ship  m merge  i comment  esc back", footer())

	p.press("enter")
	s = p.screen()
	require.Contains(t, s, "+package cart")
	require.Contains(t, s, "cart.go (1/2)")
	require.Equal(t, "↑↓ pgup/pgdn scroll  n/p file  s ship  m merge  i comment on line  esc files", footer())
	p.press("i")
	require.Contains(t, p.screen(), "comment to cart (Enter send, Esc cancel):")
	require.Contains(t, p.screen(), "cart.go:1: ")
	p.press("esc", "n")
	require.Contains(t, p.screen(), "notes.txt (2/2)")

	p.press("esc")
	require.Contains(t, footer(), "esc back")
	p.press("esc")
	require.Equal(t, "READY TO SHIP", sectionOf(p.screen(), "cart"))
	require.False(t, p.quit)
	require.Empty(t, p.d.calls)
}

func TestControlRowSaysInPlace(t *testing.T) {
	p := newPopup(t)
	p.d.snap.Items[1].InPlace = true // cart
	p.m.reload()
	found := false
	for _, l := range strings.Split(p.screen(), "\n") {
		if strings.Contains(l, " cart ") {
			found = true
			require.Contains(t, l, "in place")
		} else {
			require.NotContains(t, l, "in place")
		}
	}
	require.True(t, found, p.screen())
}

// A spawned agent's row sits under its spawner's, drawn as a branch of it
// and saying by whom; agent-to-agent traffic shows in RECENT as
// "a → b: first line".
func TestControlSpawnedRowUnderItsSpawnerAndTrafficInRecent(t *testing.T) {
	p := newPopup(t)
	now := time.Now()
	p.d.snap.Items = append(p.d.snap.Items, lifecycle.Item{Name: "helper", Repo: "/r/shop", Status: "working", StatusSince: now, Spawner: "busy"})
	p.d.snap.Records = append(p.d.snap.Records, &state.Record{Name: "helper", Repo: "/r/shop", Status: state.Working, StatusSince: now, Spawner: "busy"})
	p.d.snap.Events = append(p.d.snap.Events, control.Event{At: now, Repo: "/r/shop", Name: "busy → cart", Event: "message", Detail: "the cart API is ready"})
	p.m.reload()
	lines := strings.Split(p.screen(), "\n")
	at := func(sub string) int {
		for i, l := range lines {
			if strings.Contains(l, sub) {
				return i
			}
		}
		t.Fatalf("no %q in\n%s", sub, p.screen())
		return -1
	}
	busy, helper := at(" busy "), at("└ helper")
	require.Equal(t, busy+1, helper, p.screen())
	require.Contains(t, lines[helper], "spawned by busy")
	require.Contains(t, lines[at("busy → cart")], "busy → cart: the cart API is ready")
}

// The selected agent's row says why it has its status (owt why's first
// line) on the line under it, and only the selected one does.
func TestControlShowsWhyUnderTheSelectedRow(t *testing.T) {
	p := newPopup(t)
	for _, r := range p.d.snap.Records {
		if r.Name == "asker" {
			r.Source, r.WaitingFor = state.FromHook, "permission"
			r.Hooks = []state.HookEvent{{Event: "PermissionRequest", Status: state.Waiting, At: r.StatusSince}}
			r.Screen = &state.ScreenEvidence{Status: state.Waiting, Rule: "claude/permission", At: r.StatusSince,
				Lines: []untrusted.Untrusted{untrusted.From("Do you want to \x1b]0;PWNED\x07proceed?")}}
		}
	}
	p.m.width = 200 // the line is cut to the popup's width like every other
	p.m.reload()
	p.sel("asker")
	lines := strings.Split(p.screen(), "\n")
	at := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "> ") && strings.Contains(l, "asker") {
			at = i
		}
	}
	require.GreaterOrEqual(t, at, 0, p.screen())
	require.Less(t, at+1, len(lines))
	require.Regexp(t, `^    why: waiting for permission since \d\d:\d\d \(hook PermissionRequest, confirmed by screen: 'Do you want to \]0;PWNEDproceed\?' — rule claude/permission\)$`, lines[at+1])
	require.Equal(t, 1, strings.Count(p.screen(), "why: "), "only the selected row says why")

	p.sel("cart")
	s := p.screen()
	require.NotContains(t, s, "PermissionRequest", "asker is no longer selected")
	require.Contains(t, s, "why: idle since ")
	require.Equal(t, 1, strings.Count(s, "why: "))
	require.NotContains(t, s, "\x1b")
}

// An agent on a host is a row NAME@HOST whose verbs reach the desk as
// the record NAME@HOST (the live desk runs them there): a message, a
// merge after the host's report and a yes, a delete; dismiss and resolve
// are refused, saying what does it.
func TestControlVerbsOfARemoteAgentReachTheDeskAsNameAtHost(t *testing.T) {
	p := newPopup(t)
	now := time.Now()
	p.d.snap.Items = append(p.d.snap.Items, lifecycle.Item{Name: "far", Host: "box", Repo: "/r/shop", Branch: "feat/far",
		Session: "app_far", Status: string(state.Idle), StatusSince: now, Live: true})
	p.d.remote = map[string]*state.Record{"far@box": {Name: "far@box", Repo: "/r/shop", Branch: "feat/far", Base: "main",
		Path: "/home/h/app.worktrees/far", Session: "app_far", Status: state.Idle, StatusSince: now}}
	p.d.reports["far@box"] = land.Report{Name: "far@box", Branch: "feat/far", Base: "main", Ahead: 1}
	p.m.reload()

	p.sel("far@box")
	p.press("i")
	p.press("h", "i", " ", "$", "(", "x", ")")
	p.press("enter")
	require.Contains(t, p.d.calls, "send far@box: hi $(x)")
	require.Contains(t, p.screen(), "sent to far@box")

	p.sel("far@box")
	p.press("m")
	require.Contains(t, p.screen(), "Merge feat/far into main?")
	require.Contains(t, p.screen(), "is deleted on box")
	p.press("n")
	require.NotContains(t, strings.Join(p.d.calls, "\n"), "land far@box")
	p.press("m", "y")
	require.Contains(t, p.d.calls, "land far@box ship=false accepted=false")

	p.sel("far@box")
	p.press("x")
	require.Contains(t, p.screen(), "Delete far@box?")
	require.Contains(t, p.screen(), "On box, session app_far")
	p.press("y")
	require.Contains(t, p.d.calls, "delete far@box accepting ") // nothing to lose

	p.sel("far@box")
	p.press("R")
	require.Contains(t, p.screen(), "not from this board yet")
	require.Contains(t, p.screen(), "owt switch far@box")
}

// The footer of a row of an agent on a host has the host's own figures
// (from its list), never git's here about a worktree that is not here.
func TestControlDetailOfARemoteAgentIsTheHosts(t *testing.T) {
	p := newPopup(t)
	now := time.Now()
	p.d.snap.Items = append(p.d.snap.Items, lifecycle.Item{Name: "far", Host: "box", Repo: "/r/shop", Branch: "feat/far", Base: "main",
		Path: "/home/h/app.worktrees/far", Session: "app_far", Status: string(state.Idle), StatusSince: now, Live: true,
		Ahead: 2, Insertions: 7, Deletions: 1, Dirty: 3})
	p.m.reload()
	p.sel("far@box")
	s := p.screen()
	require.NotContains(t, s, "worktree missing")
	require.Contains(t, s, "feat/far → main on box: 2 ahead, 0 behind, +7 -1, 3 uncommitted")
	require.NotContains(t, p.d.statted, "far@box", "git here was asked about the host's worktree")
}

// An agent's row shows its usage windows where its tool reports them.
func TestControlRowShowsTheUsageWindows(t *testing.T) {
	p := newPopup(t)
	now := time.Now()
	p.d.snap.Items = append(p.d.snap.Items, lifecycle.Item{Name: "limited-one", Repo: "/r/shop", Status: "working", StatusSince: now,
		Usage: &usage.Summary{TotalTokens: 1200, Limits: usage.Limits{
			{Window: usage.Window5h, UsedPercent: 82.5, ResetsAt: now.Add(time.Hour)},
			{Window: usage.WindowWeekly, UsedPercent: 41, ResetsAt: now.Add(72 * time.Hour)},
		}}})
	p.d.snap.Records = append(p.d.snap.Records, &state.Record{Name: "limited-one", Repo: "/r/shop", Status: state.Working, StatusSince: now})
	p.m.reload()
	for _, l := range strings.Split(p.screen(), "\n") {
		if strings.Contains(l, "limited-one") {
			require.Contains(t, l, "5h 82% wk 41%", p.screen())
			return
		}
	}
	t.Fatalf("no row of limited-one in\n%s", p.screen())
}
