package popups

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/ktr0731/go-fuzzyfinder/matching"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// finder is the pickers' list (Alt+s, and Alt+m and Alt+d outside a
// worktree): the rows filtered as the query is typed, the best match
// nearest the prompt, the match count, and a preview of the row under the
// cursor beside the list where there is room. Keys: type to filter,
// Up/Down (Ctrl-p/Ctrl-n, Ctrl-k) to move, Enter to choose, Esc or
// Ctrl-c to close.
//
// It filters in Update, with the key that changed the query, so an Enter
// always takes a row of the list that the keys before it made. (The
// go-fuzzyfinder it replaces filtered in a goroutine behind its key
// reader, and an Enter typed quickly after the query took the row under
// the cursor of the unfiltered list: the wrong agent.)
type finder struct {
	rows    []string
	prompt  string
	header  string
	pal     palette
	preview func(i, width, height int) string // nil: no preview
	startOn func(i int) bool                  // nil: the best match

	query   []rune
	matched []matching.Matched
	cursor  int // into matched: 0 is the best match, drawn at the bottom
	offset  int // the first of matched drawn (at the bottom)
	width   int
	height  int

	chosen  int // index into rows; -1 until Enter
	aborted bool
}

// previewEvery is how often the preview is drawn again, so the screen of
// the agent under the cursor stays live while the picker is open.
const previewEvery = time.Second

type previewTick struct{}

func newFinder(rows []string, width, height int) *finder {
	drawn := make([]string, len(rows))
	for i, r := range rows {
		drawn[i] = untrusted.CleanLine(r) // matched as drawn
	}
	f := &finder{rows: drawn, width: width, height: height, chosen: -1}
	f.filter()
	return f
}

func (f *finder) Init() tea.Cmd { return f.tick() }

func (f *finder) tick() tea.Cmd {
	if f.preview == nil {
		return nil
	}
	return tea.Tick(previewEvery, func(time.Time) tea.Msg { return previewTick{} })
}

func (f *finder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		f.width, f.height = msg.Width, msg.Height
		f.scroll()
	case previewTick:
		return f, f.tick()
	case tea.KeyMsg:
		return f, f.key(msg)
	}
	return f, nil
}

func (f *finder) key(k tea.KeyMsg) tea.Cmd {
	switch k.String() {
	case "esc", "ctrl+c", "ctrl+d":
		f.aborted = true
		return tea.Quit
	case "enter", "ctrl+j":
		// ctrl+j: a newline, which is what an Enter typed ahead becomes
		// while the terminal is still in line mode (before the picker
		// has drawn).
		if len(f.matched) == 0 {
			return nil // nothing to choose: the query must change first
		}
		f.chosen = f.matched[f.cursor].Idx
		return tea.Quit
	case "up", "ctrl+p", "ctrl+k":
		f.move(1)
	case "down", "ctrl+n":
		f.move(-1)
	case "pgup":
		f.move(f.listHeight())
	case "pgdown":
		f.move(-f.listHeight())
	case "backspace", "ctrl+h":
		if len(f.query) > 0 {
			f.setQuery(f.query[:len(f.query)-1])
		}
	case "ctrl+u":
		f.setQuery(nil)
	case "ctrl+w":
		q := strings.TrimRightFunc(string(f.query), unicode.IsSpace)
		f.setQuery([]rune(q[:strings.LastIndexFunc(q, unicode.IsSpace)+1]))
	default:
		if k.Type == tea.KeyRunes || k.Type == tea.KeySpace {
			f.setQuery(append(f.query, queryRunes(k.Runes)...))
		}
	}
	return nil
}

// queryRunes are the runes of a key (or a paste) that go into the query:
// its first line, drawn inert (untrusted.CleanLine), so the prompt stays
// one line.
func queryRunes(in []rune) []rune {
	first, _, _ := strings.Cut(strings.ReplaceAll(string(in), "\r", "\n"), "\n")
	return []rune(untrusted.CleanLine(first))
}

func (f *finder) setQuery(q []rune) {
	f.query = q
	f.filter()
}

// filter matches the rows against the query, best first (every row in its
// order for an empty query), and puts the cursor on the best match; with
// no query yet, on the first row startOn accepts.
func (f *finder) filter() {
	if len(f.query) == 0 {
		f.matched = make([]matching.Matched, len(f.rows))
		for i := range f.rows {
			f.matched[i] = matching.Matched{Idx: i, Pos: [2]int{-1, -1}}
		}
	} else {
		f.matched = matching.FindAll(string(f.query), f.rows)
	}
	f.cursor, f.offset = 0, 0
	if f.startOn != nil && len(f.query) == 0 {
		for i, m := range f.matched {
			if f.startOn(m.Idx) {
				f.cursor = i
				break
			}
		}
	}
	f.scroll()
}

func (f *finder) move(by int) {
	f.cursor = max(0, min(len(f.matched)-1, f.cursor+by))
	f.scroll()
}

// scroll keeps the cursor's row on the screen, and the screen full where
// there are rows enough (a window made taller shows the best matches
// again).
func (f *finder) scroll() {
	h := f.listHeight()
	switch {
	case f.cursor < f.offset:
		f.offset = f.cursor
	case f.cursor >= f.offset+h:
		f.offset = f.cursor - h + 1
	}
	f.offset = max(0, min(f.offset, len(f.matched)-h))
}

// listHeight is how many rows fit above the count, header and prompt.
func (f *finder) listHeight() int {
	h := f.height - 2
	if f.header != "" {
		h--
	}
	return max(1, h)
}

// listWidth is the width the rows are drawn in: all of it, or the left
// half beside the preview.
func (f *finder) listWidth() int {
	if f.preview != nil {
		return f.width/2 - 1
	}
	return f.width
}

func (f *finder) View() string {
	if f.width <= 0 || f.height <= 0 {
		return ""
	}
	w := f.listWidth()
	left := make([]string, 0, f.height)
	// Drawn bottom up: the prompt, the header, the count, then the rows,
	// the best match nearest the prompt (as fzf and go-fuzzyfinder draw).
	// A screen too short for all of them keeps the prompt, then the count.
	left = append(left, f.promptLine(w))
	count := "  " + f.pal.Paint(sgrYellow, fmt.Sprintf("%d/%d", len(f.matched), len(f.rows)))
	if f.header != "" && f.height > 2 {
		left = append(left, "  "+f.pal.Paint(sgrGreen, ansi.Truncate(f.header, max(0, w-2), "..")))
	}
	if f.height > 1 {
		left = append(left, count)
	}
	for i := f.offset; i < len(f.matched) && len(left) < f.height; i++ {
		left = append(left, f.rowLine(i, w))
	}
	for len(left) < f.height {
		left = append(left, "")
	}
	lines := make([]string, f.height)
	for i, l := range left {
		lines[f.height-1-i] = l
	}
	if f.preview != nil {
		box := f.previewBox()
		for i := range lines {
			lines[i] = padRight(lines[i], f.width/2) + box[i]
		}
	}
	return strings.Join(lines, "\n")
}

// promptLine is the prompt and the query in width columns: a query too
// long for them shows its end, where the typing is.
func (f *finder) promptLine(width int) string {
	q := string(f.query)
	if room := width - ansi.StringWidth(f.prompt) - 1; ansi.StringWidth(q) > room {
		q = "…" + ansi.TruncateLeft(q, ansi.StringWidth(q)-room+1, "")
	}
	return ansi.Truncate(f.pal.Paint(sgrBold, f.prompt)+q+f.pal.Paint(sgrCursor, " "), max(0, width), "")
}

// rowLine is the i-th match in width columns: "> " before the cursor's
// row, the query's letters marked in the others.
func (f *finder) rowLine(i, width int) string {
	m := f.matched[i]
	row := ansi.Truncate(f.rows[m.Idx], max(0, width-2), "..")
	if i == f.cursor {
		if f.pal.Colored() {
			return f.pal.Paint(sgrCursor, "> "+row)
		}
		return "> " + row
	}
	if !f.pal.Colored() || len(f.query) == 0 || m.Pos[0] < 0 {
		return "  " + row
	}
	var b strings.Builder
	b.WriteString("  ")
	q := 0
	for j, r := range []rune(row) {
		if q < len(f.query) && j >= m.Pos[0] && j <= m.Pos[1] && unicode.ToLower(r) == unicode.ToLower(f.query[q]) {
			b.WriteString(f.pal.Paint(sgrGreen, string(r)))
			q++
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// previewBox is the right half: a frame around the preview of the row
// under the cursor.
func (f *finder) previewBox() []string {
	outer := f.width - f.width/2
	inner := max(0, outer-4)
	body := max(0, f.height-2)
	idx := -1
	if len(f.matched) > 0 {
		idx = f.matched[f.cursor].Idx
	}
	var text []string
	if idx >= 0 {
		text = strings.Split(f.preview(idx, inner, body), "\n")
	}
	edge := strings.Repeat("─", max(0, outer-2))
	box := make([]string, 0, f.height)
	box = append(box, f.pal.Paint(sgrDim, "┌"+edge+"┐"))
	for i := 0; i < body; i++ {
		line := ""
		if i < len(text) {
			line = ansi.Truncate(untrusted.CleanLine(text[i]), inner, "")
		}
		side := f.pal.Paint(sgrDim, "│")
		box = append(box, side+" "+padRight(line, inner)+" "+side)
	}
	return append(box, f.pal.Paint(sgrDim, "└"+edge+"┘"))[:f.height]
}

// padRight pads s (which may hold styles) with spaces to width columns.
func padRight(s string, width int) string {
	if n := ansi.StringWidth(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}
