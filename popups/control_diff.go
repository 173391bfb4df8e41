package popups

import (
	"cmp"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// OptDiffPager names a pager (delta, less -R …) that shows a file's diff
// instead of the built-in view.
const OptDiffPager = "@owt-diff-pager"

// diffView is the diff review of one worktree: its changed files against
// the base, and one file's diff at a time.
type diffView struct {
	rec   *state.Record
	files []git.FileChange
	sel   int
	err   string
	// The open file's diff, its new-file line numbers, the first line shown.
	open   bool
	lines  []string
	lineNo []int
	top    int
	pager  []string
}

type diffMsg struct {
	files []git.FileChange
	text  string
	file  bool
	err   error
}

// openDiff starts the review of rec: the list of files is read in the
// background.
func (m *ctl) openDiff(rec *state.Record) tea.Cmd {
	d := &diffView{rec: rec, pager: m.desk.DiffPager()}
	m.diff, m.mode = d, reviewing
	return func() tea.Msg {
		files, err := m.desk.ChangedFiles(rec)
		return diffMsg{files: files, err: err}
	}
}

// diffBase is what the worktree is compared with (git.Repo.BaseRef).
func diffBase(rec *state.Record) string {
	return git.Repo{Root: rec.Repo}.BaseRef(rec.Base, rec.BaseCommit)
}

func (m *ctl) diffLoaded(msg diffMsg) (tea.Model, tea.Cmd) {
	d := m.diff
	if d == nil {
		return m, nil
	}
	if msg.err != nil {
		d.err = msg.err.Error()
		return m, nil
	}
	d.err = ""
	if !msg.file {
		d.files = msg.files
		d.sel = min(d.sel, max(0, len(d.files)-1))
		return m, nil
	}
	d.open, d.top = true, 0
	d.lines, d.lineNo = numberLines(strings.TrimRight(msg.text, "\n"))
	for i, l := range d.lines {
		d.lines[i] = m.diffLine(l)
	}
	return m, nil
}

var hunkRe = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@`)

// numberLines splits a diff and gives each line the new file's line
// number it is at (0 before the first hunk), for comments on a line.
func numberLines(text string) ([]string, []int) {
	lines := strings.Split(text, "\n")
	nums := make([]int, len(lines))
	next := 0
	for i, l := range lines {
		plain := ansi.Strip(l)
		if m := hunkRe.FindStringSubmatch(plain); m != nil {
			next, _ = strconv.Atoi(m[1])
			nums[i] = next
			continue
		}
		nums[i] = next
		if next > 0 && !strings.HasPrefix(plain, "-") {
			next++
		}
	}
	return lines, nums
}

func (m *ctl) loadFile() tea.Cmd {
	d := m.diff
	if d == nil || len(d.files) == 0 {
		return nil
	}
	f, rec, color := d.files[d.sel], d.rec, m.pal.Colored()
	if len(d.pager) > 0 {
		text, err := m.desk.FileDiff(rec, f, color)
		if err != nil {
			d.err = err.Error()
			return nil
		}
		cmd := exec.Command(d.pager[0], d.pager[1:]...)
		cmd.Stdin = strings.NewReader(text)
		return tea.ExecProcess(cmd, func(err error) tea.Msg {
			if err != nil {
				return verbMsg{err: fmt.Errorf("%s %s: %w", OptDiffPager, d.pager[0], err)}
			}
			return nil
		})
	}
	return func() tea.Msg {
		// Plain text from git, coloured here by each line's kind: a
		// file's own escape sequences are then only text (untrusted.CleanLine).
		text, err := m.desk.FileDiff(rec, f, false)
		return diffMsg{text: text, file: true, err: err}
	}
}

func (m *ctl) closeDiff() (tea.Model, tea.Cmd) {
	if m.standaloneDiff {
		return m, tea.Quit
	}
	m.diff, m.mode = nil, browsing
	return m, nil
}

func (m *ctl) diffKey(k tea.KeyMsg) (tea.Model, tea.Cmd) { return m.dispatch(diffKeys(), k) }

// commentPrefix names the file and line the review is at, for a comment.
func (m *ctl) commentPrefix() string {
	d := m.diff
	if len(d.files) == 0 {
		return ""
	}
	path := d.files[d.sel].Path
	if d.open && d.top < len(d.lineNo) {
		line := d.lineNo[d.top]
		for i := d.top; i < len(d.lineNo) && line == 0; i++ {
			line = d.lineNo[i]
		}
		if line > 0 {
			return fmt.Sprintf("%s:%d: ", path, line)
		}
	}
	return path + ": "
}

func (m *ctl) diffView() []string {
	d := m.diff
	// An agent on a host stands in without its base (it is there).
	title := fmt.Sprintf("diff %s (%s → %s)", d.rec.Name, d.rec.Branch, cmp.Or(d.rec.Base, "its base"))
	out := []string{m.paint(sgrBold, title)}
	var footer []string
	switch {
	case m.mode == typing:
		footer = []string{"comment to " + d.rec.Name + " " + m.inline(typingKeys()) + ":", m.input.View()}
	case d.err != "":
		footer = []string{m.paint(sgrRed, d.err)}
	case m.status != "":
		sgr := sgrGreen
		if m.failed {
			sgr = sgrRed
		}
		footer = []string{m.paint(sgr, m.status)}
	}
	footer = append(footer, m.wrapKeys(m.hints(diffKeys()))...)
	room := max(1, m.height-len(out)-len(footer))
	var body []string
	if d.open {
		f := d.files[d.sel]
		out[0] += "  " + untrusted.CleanLine(f.Path) + fmt.Sprintf(" (%d/%d)", d.sel+1, len(d.files))
		end := min(len(d.lines), d.top+room)
		body = d.lines[d.top:end]
	} else {
		body = m.fileLines(room)
	}
	out = append(out, body...)
	for len(out) < m.height-len(footer) {
		out = append(out, "")
	}
	return append(out, footer...)
}

func (m *ctl) fileLines(room int) []string {
	d := m.diff
	if len(d.files) == 0 {
		if d.err == "" {
			return []string{"  no changes against " + cmp.Or(d.rec.Base, "its base")}
		}
		return nil
	}
	start := 0
	if d.sel >= room {
		start = d.sel - room + 1
	}
	var out []string
	for i := start; i < len(d.files) && len(out) < room; i++ {
		f := d.files[i]
		counts := m.paint(sgrGreen, fmt.Sprintf("+%d", f.Insertions)) + " " + m.paint(sgrRed, fmt.Sprintf("-%d", f.Deletions))
		switch {
		case f.Untracked:
			counts = m.paint(sgrGreen, "new, uncommitted")
		case f.Binary:
			counts = "binary"
		}
		line := fmt.Sprintf("%s  %s", untrusted.CleanLine(f.Path), counts)
		if i == d.sel {
			line = "> " + line
			if m.pal.Colored() {
				line = m.paint(sgrCursor, ansi.Strip(line))
			}
		} else {
			line = "  " + line
		}
		out = append(out, line)
	}
	return out
}

// diffLine is one line of a plain diff, made safe to draw and coloured
// by its kind (added, removed, hunk, header).
func (m *ctl) diffLine(l string) string {
	l = untrusted.CleanLine(strings.ReplaceAll(l, "\t", "    "))
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
		return m.paint(sgrBold, l)
	case strings.HasPrefix(l, "+"):
		return m.paint(sgrGreen, l)
	case strings.HasPrefix(l, "-"):
		return m.paint(sgrRed, l)
	case strings.HasPrefix(l, "@@"):
		return m.paint(sgrHunk, l)
	}
	return l
}
