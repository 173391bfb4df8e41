package popups

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	fuzzyfinder "github.com/ktr0731/go-fuzzyfinder"

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
	rows := make([][]string, len(items))
	widths := make([]int, 7)
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
		rows[i] = []string{agentstatus.Glyph(it.Status), name, repoName(it.Repo), tool, workspace.Age(now.Sub(it.CreatedAt)), changes, branch}
		for c, cell := range rows[i] {
			widths[c] = max(widths[c], len([]rune(cell)))
		}
	}
	out := make([]string, len(items))
	for i, row := range rows {
		var b strings.Builder
		for c, cell := range row {
			b.WriteString(cell)
			if c < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[c]-len([]rune(cell))+2))
			}
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	return out
}

func repoName(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[i+1:]
	}
	return path
}

// pickOptions tune pick.
type pickOptions struct {
	prompt  string
	header  string
	preview bool
}

// pick shows the agents in a fuzzy finder and returns the chosen one;
// errCancelled on Esc or Ctrl-c.
func pick(tm *tmux.Client, a agents, o pickOptions) (lifecycle.Item, error) {
	if len(a.items) == 0 {
		return lifecycle.Item{}, errors.New("no agents yet: start one with Alt+c or owt new \"TASK\"")
	}
	rows := labels(a.items, time.Now())
	opts := []fuzzyfinder.Option{fuzzyfinder.WithPromptString(o.prompt), fuzzyfinder.WithHeader(o.header)}
	if o.preview {
		p := newPreviewer(tm, a)
		opts = append(opts, fuzzyfinder.WithPreviewWindow(p.render))
	}
	i, err := fuzzyfinder.Find(rows, func(i int) string { return rows[i] }, opts...)
	if errors.Is(err, fuzzyfinder.ErrAbort) {
		return lifecycle.Item{}, errCancelled
	}
	if err != nil {
		return lifecycle.Item{}, fmt.Errorf("picker: %w", err)
	}
	return a.items[i], nil
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
