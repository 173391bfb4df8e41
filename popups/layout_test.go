package popups

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/workspace"
)

func TestElideCutsBetweenWords(t *testing.T) {
	require.Equal(t, "fits", elide("fits", 10))
	require.Equal(t, "0 commit(s), 1…", elide("0 commit(s), 1 uncommitted", 18))
	require.Equal(t, "abcdefghi…", elide("abcdefghijklmnop", 10), "one long word is cut where it must be")
	got := elide("\x1b[31mred words here\x1b[0m and more", 12)
	require.Equal(t, "red words…", ansi.Strip(got))
	require.LessOrEqual(t, ansi.StringWidth(got), 12)
	require.Equal(t, []string{"one two", "  three four"}, wrapWords("one two three four", 12, 2))
}

// words are the words of a screen, a closing "…" taken off.
func words(screen string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(ansi.Strip(screen)) {
		if w = strings.TrimSuffix(w, "…"); w != "" {
			out[w] = true
		}
	}
	return out
}

// requireFits fails on a line of screen wider than width, or holding a
// word that the same screen drawn without limit does not have: a word
// cut in two.
func requireFits(t *testing.T, what, screen, wide string, width int) {
	t.Helper()
	all := words(wide)
	for _, l := range strings.Split(screen, "\n") {
		require.LessOrEqual(t, ansi.StringWidth(l), width, "%s at %d: %q", what, width, l)
		for w := range words(l) {
			require.True(t, all[w], "%s at %d: %q is a word cut in two, in %q", what, width, w, l)
		}
	}
}

// The control popup at a phone's 50 columns and at 80 and 120: no line
// wider than the popup, no word cut in two, the agents' names and why
// each is there shown, and every verb reachable (in the footer or ?).
func TestControlPopupFitsEveryWidth(t *testing.T) {
	view := func(width, height int, keys ...string) string {
		p := newPopup(t)
		for _, r := range p.d.snap.Records {
			r.Task = "Refactor the payment gateway integration so that refunds are supported end to end"
		}
		p.m.width, p.m.height = width, height
		p.m.all = true
		p.m.reload()
		p.press(keys...)
		return p.m.View()
	}
	for _, width := range []int{50, 80, 120} {
		for _, keys := range [][]string{{"down"}, {"down", "?"}, {"down", "/"}, {"down", "i"}, {"down", "down", "x"}} {
			what := strings.Join(keys, " ")
			screen := view(width, 25, keys...)
			requireFits(t, what, screen, view(1000, 60, keys...), width)
		}
		board := view(width, 25, "down")
		for _, name := range []string{"asker", "cart", "docs", "busy", "g/api"} {
			require.Contains(t, board, name, "at %d", width)
		}
		require.Contains(t, board, "1 commit(s)", "why cart is ready, at %d", width)
		require.Contains(t, board, "? help", "at %d", width)
		require.Contains(t, board, "s ship", "at %d", width)
		help := view(width, 25, "down", "?")
		for _, k := range []string{"enter ", "s ", "m ", "d ", "x ", "i ", "a ", "R ", "r ", "K ", "p ", "/ ", "q / Esc"} {
			require.Contains(t, help, "\n"+k, "the help names %q at %d", k, width)
		}
	}
	narrow := view(50, 25, "down")
	require.NotContains(t, narrow, "idle  ", "the status word is the glyph's on a phone")
	require.Contains(t, view(120, 25, "down"), "idle ")
}

// The switch picker's rows at a phone's 50 columns and at 80 and 120:
// on a phone the columns that do not fit whole are left out (the branch,
// repo, tool first), the glyph and the name always stay, and no row is
// wider than the picker draws; wider, the preview comes beside the rows
// when they fit in half, and every column is there.
func TestSwitchPickerRowsFitEveryWidth(t *testing.T) {
	now := time.Now()
	items := []lifecycle.Item{
		{Name: "asker", Repo: "/src/shop", Tool: "claude", Status: "waiting", Branch: "feat/asker", CreatedAt: now.Add(-3 * time.Minute), Insertions: 12, Deletions: 3},
		{Name: "write-intro-post", Repo: "/src/blog", Tool: "codex", Status: "working", Branch: "feat/write-intro-post", CreatedAt: now.Add(-90 * time.Minute), Dirty: 2},
		{Name: "login-redirect", Repo: "/src/shop", Status: "idle", Branch: "fix/login-redirect", CreatedAt: now.Add(-26 * time.Hour)},
	}
	wide, _ := layoutRows(items, now, 0)
	for _, width := range []int{50, 80, 120} {
		rows, preview := layoutRows(items, now, width)
		room := width - 3
		if preview {
			room = width/2 - 3
		}
		for i, row := range rows {
			require.Contains(t, row, items[i].Name, "at %d", width)
			require.True(t, strings.HasPrefix(row, status.Glyph(items[i].Status)+"  "), "at %d: %q", width, row)
			if width < narrowBelow {
				requireFits(t, "switch", row, wide[i], room)
				continue
			}
			// Wide: every column; the name, repo, tool and age within
			// the picker's room, what follows may pass its edge.
			require.Equal(t, wide[i], row, "at %d", width)
			age := workspace.Age(now.Sub(items[i].CreatedAt))
			require.LessOrEqual(t, ansi.StringWidth(row[:strings.Index(row, age)+len(age)]), room, "at %d: %q", width, row)
		}
		require.Equal(t, width == 120, preview, "the preview at %d", width)
	}
	phone, _ := layoutRows(items, now, 50)
	require.NotContains(t, phone[0], "feat/asker", "the branch goes first on a phone")
	require.NotContains(t, phone[0], "shop", "then the repo")
}
