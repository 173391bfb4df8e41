package popups

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	agentstatus "github.com/owt-tmux/owt/internal/status"

	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// firstFrameWait bounds how long the picker waits for fresh git figures
// before drawing; figures not ready by then show their cached values.
const firstFrameWait = 60 * time.Millisecond

// agents are the rows a picker offers, with the records they came from.
type agents struct {
	items []lifecycle.Item
	recs  map[state.Key]*state.Record
}

// loadAgents collects every agent of every repository, the ones that need
// the user first.
func loadAgents(tm *tmux.Client) (agents, error) {
	recs, err := workspace.AllRecords()
	if err != nil {
		return agents{}, err
	}
	a := agents{items: lifecycle.CollectWithin(tm, recs, firstFrameWait), recs: map[state.Key]*state.Record{}}
	for _, r := range recs {
		a.recs[r.Key()] = r
	}
	lifecycle.SortForPicker(a.items)
	return a, nil
}

func (a agents) record(it lifecycle.Item) *state.Record {
	return a.recs[state.Key{Repo: it.Repo, Name: it.Name}]
}

// labels are the picker's rows: status glyph, name, repo, tool, age, +/-
// lines and branch, in aligned columns. The branch comes last: it mostly
// repeats the name, and a narrow popup cuts the end of the row.
func labels(items []lifecycle.Item, now time.Time) []string {
	rows, _ := layoutRows(items, now, 0)
	return rows
}

// The picker's columns, in the order they are drawn.
const (
	colGlyph = iota
	colName
	colRepo
	colTool
	colAge
	colChanges
	colBranch
	nCols
)

// dropFirst are the columns a narrow row leaves out first: the branch
// (it mostly repeats the name), then repo, tool, the +/- lines and the
// age; the glyph and the name always stay.
var dropFirst = []int{colBranch, colRepo, colTool, colChanges, colAge}

// layoutRows lays the rows out for a picker width columns wide (0: no
// limit, every column) and says whether the preview has room beside
// them. The preview takes half the width, so it is shown only when the
// rows up to the age fit in the other half. Without it, on a narrow
// popup (a phone), the columns that do not fit whole are left out, in
// dropFirst's order, so no row is cut mid-word; on a wide one the branch
// still comes last, cut by the picker where it must be.
func layoutRows(items []lifecycle.Item, now time.Time, width int) ([]string, bool) {
	cells := make([][]string, len(items))
	widths := make([]int, nCols)
	for i, it := range items {
		tool := it.Tool
		if tool == "" {
			tool = "shell"
		}
		changes := fmt.Sprintf("+%d -%d", it.Insertions, it.Deletions)
		if it.Missing {
			changes = "worktree missing"
		} else if it.Dirty > 0 {
			changes += fmt.Sprintf(" (%d uncommitted)", it.Dirty)
		}
		if it.PR != nil {
			changes += " PR " + untrusted.CleanLine(it.PR.Summary()) // gh's text, drawn inert
		}
		branch := it.Branch
		if it.InPlace {
			branch += " (in place)"
		}
		name := it.Name
		if it.Host != "" {
			name += "@" + it.Host // on a host: its figures are there
			changes = "on " + it.Host
			if it.Unreachable {
				changes += " (unreachable)"
			}
		}
		cells[i] = []string{agentstatus.Glyph(it.Status), name, repoName(it.Repo), tool, workspace.Age(now.Sub(it.CreatedAt)), changes, branch}
		for c, cell := range cells[i] {
			widths[c] = max(widths[c], ansi.StringWidth(cell))
		}
	}
	keep := make([]bool, nCols)
	for c := range keep {
		keep[c] = true
	}
	// span is how wide the kept columns up to last are, with their gaps.
	span := func(last int) int {
		n := 0
		for c := 0; c <= last; c++ {
			if keep[c] {
				n += widths[c] + 2
			}
		}
		return n - 2
	}
	preview := false
	if width > 0 {
		// The picker draws a row after its cursor mark ("> "), in half
		// the width less one when the preview is beside it.
		if half := width/2 - 3; width >= narrowBelow && span(colAge) <= half {
			preview = true
		} else if width < narrowBelow {
			for _, c := range dropFirst {
				if span(colBranch) <= width-3 {
					break
				}
				keep[c] = false
			}
		}
	}
	out := make([]string, len(items))
	for i, row := range cells {
		var b strings.Builder
		for c, cell := range row {
			if !keep[c] {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("  ")
			}
			b.WriteString(cell)
			if c < nCols-1 {
				b.WriteString(strings.Repeat(" ", widths[c]-ansi.StringWidth(cell)))
			}
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	return out, preview || width == 0
}

func repoName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// pickOptions tune pick.
type pickOptions struct {
	prompt string
	header string
	// narrowHeader is the header on a narrow popup ("": header).
	narrowHeader string
	// preview: the agent under the cursor is shown beside the list,
	// where the popup is wide enough for both.
	preview bool
	// startOn, when set, puts the cursor on the first agent it accepts
	// (else where the finder starts, on the first row).
	startOn func(lifecycle.Item) bool
}

// readyToLand reports whether it has finished (idle or exited) with
// work to land: commits ahead of its base, or files not committed yet.
// Alt+m's picker starts on the first such agent: the one that needs
// you most (asking for permission) has nothing to merge yet.
func readyToLand(it lifecycle.Item) bool {
	switch state.Status(it.Status) {
	case state.Idle, state.Exited:
		return it.Ahead > 0 || it.Dirty > 0
	}
	return false
}

// pick shows the agents in the finder on s and returns the chosen one;
// errCancelled on Esc or Ctrl-c.
func pick(tm *tmux.Client, s Screen, a agents, o pickOptions) (lifecycle.Item, error) {
	if len(a.items) == 0 {
		return lifecycle.Item{}, errors.New("no agents yet: start one with Alt+c or owt new \"TASK\"")
	}
	width, height, err := term.GetSize(int(s.In.Fd()))
	if err != nil {
		width, height = 0, 0 // drawn once the program learns its size
	}
	rows, room := layoutRows(a.items, time.Now(), width)
	f := newFinder(rows, width, height)
	f.prompt, f.header, f.pal = o.prompt, o.header, pickerTheme(tm)
	if width > 0 && width < narrowBelow && o.narrowHeader != "" {
		f.header = o.narrowHeader
	}
	if o.preview && room {
		f.preview = newPreviewer(tm, a).render
	}
	if o.startOn != nil {
		f.startOn = func(i int) bool { return o.startOn(a.items[i]) }
		f.filter()
	}
	p := tea.NewProgram(f, tea.WithAltScreen(), tea.WithInput(s.In), tea.WithOutput(s.Out))
	if _, err := p.Run(); err != nil {
		return lifecycle.Item{}, fmt.Errorf("picker: %w", err)
	}
	if f.aborted || f.chosen < 0 {
		return lifecycle.Item{}, errCancelled
	}
	return a.items[f.chosen], nil
}

// previewer draws the preview of the agent under the cursor: who it is,
// its diff stat and the last lines of its pane. Figures are cached so
// moving the cursor stays quick; the screen is re-read after a moment.
type previewer struct {
	tm    *tmux.Client
	a     agents
	mu    sync.Mutex
	diffs map[int]string
	shots map[int]shot
}

type shot struct {
	text untrusted.Untrusted // the agent's screen, or why there is none
	at   time.Time
}

const shotTTL = time.Second

func newPreviewer(tm *tmux.Client, a agents) *previewer {
	return &previewer{tm: tm, a: a, diffs: map[int]string{}, shots: map[int]shot{}}
}

func (p *previewer) render(i, width, height int) string {
	if i < 0 || i >= len(p.a.items) {
		return ""
	}
	it := p.a.items[i]
	status := it.Status
	if it.ExitCode != nil {
		status = fmt.Sprintf("%s(%d)", status, *it.ExitCode)
	}
	head := []string{
		fmt.Sprintf("%s %s — %s for %s", agentstatus.Glyph(it.Status), it.Name, status, workspace.Age(time.Since(it.StatusSince))),
		fmt.Sprintf("repo   %s", it.Repo),
		fmt.Sprintf("branch %s → %s%s", it.Branch, it.Base, inPlaceWord(it.InPlace)),
	}
	if r := p.a.record(it); r != nil {
		head = append(head, "why    "+agentstatus.WhyLine(r, time.Now())) // owt why's first line
	}
	if !it.Task.Empty() {
		head = append(head, "task   "+firstLine(it.Task.Block()))
	}
	diff := p.diff(i, it, width)
	diffLines := strings.Split(diff, "\n")
	if limit := max(3, height/3); len(diffLines) > limit {
		diffLines = append(diffLines[:limit-1], "…")
	}
	out := append(head, "", "── changes ──")
	out = append(out, diffLines...)
	out = append(out, "", "── screen ──")
	room := height - len(out)
	if room > 0 {
		out = append(out, p.screen(i, it, room)...)
	}
	return strings.Join(out, "\n")
}

func (p *previewer) diff(i int, it lifecycle.Item, width int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.diffs[i]; ok {
		return d
	}
	d := "(worktree missing)"
	if it.Host != "" {
		d = "(on host " + it.Host + ": owt status " + it.Name + "@" + it.Host + ")"
	} else if !it.Missing {
		var err error
		d, err = git.DiffStatText(it.Path, git.BranchRef(it.Base), width)
		if r := p.a.record(it); err != nil && r != nil && r.BaseCommit != "" {
			// The base branch is gone: compare with where the branch started.
			d, err = git.DiffStatText(it.Path, r.BaseCommit, width)
		}
		switch {
		case err != nil:
			d = "(" + err.Error() + ")"
		case d == "":
			d = "no changes yet"
		}
		if it.Dirty > 0 {
			d += fmt.Sprintf("\n%d uncommitted file(s)", it.Dirty)
		}
	}
	p.diffs[i] = d
	return d
}

// screen returns the last n non-blank lines of the agent's pane.
func (p *previewer) screen(i int, it lifecycle.Item, n int) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.shots[i]
	if !ok || time.Since(s.at) > shotTTL {
		s = shot{text: untrusted.From(p.capture(it)), at: time.Now()}
		p.shots[i] = s
	}
	lines := strings.Split(strings.TrimRight(s.text.Block(), " \n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

func (p *previewer) capture(it lifecycle.Item) string {
	if it.Host != "" {
		return "(on host " + it.Host + ": Enter opens a window attached to it over ssh)"
	}
	r := p.a.record(it)
	if !it.Live || r == nil || r.Pane == "" {
		return "(no tmux session: Enter recreates it on the worktree)"
	}
	out, err := p.tm.CaptureLast(r.Pane, 200)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return out
}

// inPlaceWord marks an agent working in the user's own checkout.
func inPlaceWord(inPlace bool) string {
	if inPlace {
		return " (in place: your checkout, no worktree)"
	}
	return ""
}
