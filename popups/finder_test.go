package popups

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/stretchr/testify/require"
)

func typeInto(f *finder, keys ...tea.KeyMsg) {
	for _, k := range keys {
		f.Update(k)
	}
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var (
	enter = tea.KeyMsg{Type: tea.KeyEnter}
	esc   = tea.KeyMsg{Type: tea.KeyEsc}
	up    = tea.KeyMsg{Type: tea.KeyUp}
	bs    = tea.KeyMsg{Type: tea.KeyBackspace}
)

// An Enter right behind the query takes the query's match: the filter
// runs with each key, not behind them (the picker before went to the row
// under the cursor of the unfiltered list, another agent).
func TestFinderEnterRightAfterTheQueryTakesItsMatch(t *testing.T) {
	f := newFinder([]string{"▲ asker  shop", "○ login-redirect  shop", "● write-intro  blog"}, 80, 20)
	typeInto(f, runes("log"), runes("in"), enter)
	require.Equal(t, 1, f.chosen)
	require.False(t, f.aborted)
}

func TestFinderCountsMovesAndCancels(t *testing.T) {
	rows := []string{"alpha", "beta", "gamma"}
	f := newFinder(rows, 40, 10)
	view := f.View()
	require.Contains(t, view, "3/3")
	require.Regexp(t, `(?m)^> alpha`, view, "the first row under the cursor")
	lines := strings.Split(view, "\n")
	require.Len(t, lines, 10)
	require.Equal(t, "> alpha", strings.TrimRight(lines[7], " "), "drawn bottom up: alpha nearest the prompt")

	typeInto(f, up, up, up) // past the top stays on the last row
	require.Regexp(t, `(?m)^> gamma`, f.View())

	typeInto(f, runes("zz"))
	require.Contains(t, f.View(), "0/3")
	typeInto(f, enter)
	require.Equal(t, -1, f.chosen, "Enter on no match chooses nothing")
	typeInto(f, bs, bs, runes("ta"))
	require.Contains(t, f.View(), "1/3")
	typeInto(f, esc)
	require.True(t, f.aborted)
	require.Equal(t, -1, f.chosen)
}

// startOn puts the cursor on the first row it accepts, again after each
// filter (Alt+m starts on the agent ready to land).
func TestFinderStartsOnTheRowAsked(t *testing.T) {
	f := newFinder([]string{"login", "checkout", "cart"}, 40, 10)
	f.startOn = func(i int) bool { return i == 1 }
	f.filter()
	require.Regexp(t, `(?m)^> checkout`, f.View())
	typeInto(f, runes("lo"), enter)
	require.Equal(t, 0, f.chosen, "a query's best match, not the row asked for")
}

// Every height draws, a too-short screen keeping the prompt first, then
// the count (a height of 1 or 2 panicked).
func TestFinderDrawsOnAnyHeight(t *testing.T) {
	for h := 1; h <= 4; h++ {
		f := newFinder([]string{"alpha", "beta"}, 30, h)
		f.prompt, f.header = "switch> ", "the header"
		lines := strings.Split(f.View(), "\n")
		require.Len(t, lines, h)
		require.True(t, strings.HasPrefix(lines[h-1], "switch> "), "height %d: %q", h, lines)
		if h > 1 {
			require.Contains(t, lines, "  2/2", "height %d: the count", h)
		}
	}
	f := newFinder([]string{"alpha"}, 0, 0)
	require.Empty(t, f.View(), "no size yet: nothing drawn")
}

// A row or preview line with tabs or other controls is drawn in the
// columns it is counted in; a paste goes into the query as one line.
func TestFinderDrawsControlsInertAndPastesOneLine(t *testing.T) {
	f := newFinder([]string{"a\tb\x07c"}, 40, 6)
	f.preview = func(int, int, int) string { return "task\tone\x1b[2J" }
	view := f.View()
	require.NotContains(t, view, "\t")
	require.NotContains(t, view, "\x07")
	require.NotContains(t, view, "\x1b[2J")
	require.Contains(t, view, "> a bc")
	require.Contains(t, view, "│ task one[2J")

	typeInto(f, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a\tb\nrest"), Paste: true})
	require.Equal(t, "a b", string(f.query))
}

// A long query shows its end; a window made taller is filled with rows.
func TestFinderPromptAndScrollFitTheWindow(t *testing.T) {
	f := newFinder([]string{"x"}, 20, 5)
	f.prompt = "switch> "
	typeInto(f, runes("abcdefghijklmnopqrstuvwxyz"))
	last := strings.Split(f.View(), "\n")[4]
	require.LessOrEqual(t, len([]rune(last)), 20, "%q", last)
	require.Regexp(t, `^switch> …[a-z]*uvwxyz $`, last, "the end of the query, where the typing is")

	rows := make([]string, 20)
	for i := range rows {
		rows[i] = fmt.Sprintf("row%02d", i)
	}
	f = newFinder(rows, 30, 5)
	typeInto(f, up, up, up, up, up, up, up, up, up, up)
	f.Update(tea.WindowSizeMsg{Width: 30, Height: 16})
	lines := strings.Split(f.View(), "\n")
	require.Len(t, lines, 16)
	require.Regexp(t, `^  row\d\d$`, lines[0], "rows fill the taller window, no blank lines above them")
	require.Contains(t, lines, "> row10")
}

// The preview is drawn in a frame in the right half, told the room
// inside it; a long row is cut in the left half.
func TestFinderPreviewBesideTheRows(t *testing.T) {
	var gotW, gotH int
	f := newFinder([]string{strings.Repeat("x", 60), "short"}, 40, 8)
	f.preview = func(i, w, h int) string {
		gotW, gotH = w, h
		return "row " + f.rows[i][:1] + "\n" + strings.Repeat("y", 99)
	}
	view := f.View()
	lines := strings.Split(view, "\n")
	require.Len(t, lines, 8)
	require.Equal(t, 16, gotW)
	require.Equal(t, 6, gotH)
	require.Equal(t, "┌──────────────────┐", strings.TrimLeft(lines[0][strings.Index(lines[0], "┌"):], " "))
	require.Contains(t, lines[1], "│ row x")
	for _, l := range lines {
		require.LessOrEqual(t, len([]rune(l)), 40, "a line wider than the screen: %q", l)
	}
	require.Contains(t, view, "> xxxxxxxxxxxxxxx..", "the long row cut in its half")
}

// An Enter typed before the picker drew arrives as a newline (the
// terminal was still in line mode): it chooses, as Enter does.
func TestFinderTakesANewlineTypedAheadAsEnter(t *testing.T) {
	f := newFinder([]string{"asker", "login-redirect"}, 40, 10)
	typeInto(f, runes("login"), tea.KeyMsg{Type: tea.KeyCtrlJ})
	require.Equal(t, 1, f.chosen)
}
