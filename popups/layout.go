package popups

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// narrowBelow is the popup width (columns) under which the screens use
// their narrow layout: a phone's terminal over ssh (Blink, Termius) is
// about 50 columns, and so is the popup owt opens there (the whole
// client, see keybindings.Narrow).
const narrowBelow = 60

// elide fits s (which may hold colours) into width columns: whole, or cut
// at the last blank that fits, with "…" after it, so no word is cut in
// two; a first word wider than width alone is cut where it must be.
func elide(s string, width int) string {
	if width <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= width {
		return s
	}
	plain := []rune(ansi.Strip(s))
	cut, w := 0, 0 // cut: the columns before the last blank within width-1
	for _, r := range plain {
		rw := ansi.StringWidth(string(r))
		if w+rw > width-1 {
			break
		}
		if r == ' ' {
			cut = w
		}
		w += rw
	}
	if strings.TrimSpace(string(plain[:min(len(plain), cut)])) == "" {
		cut = width - 1 // one long word: nothing to cut between
	}
	out := strings.TrimRight(ansi.Truncate(s, cut, ""), " ")
	if strings.Contains(s, "\x1b[") {
		out += "\x1b[0m" // a colour cut off before its end stops here
	}
	return out + "…"
}

// wrapWords breaks s into lines of at most width columns at its blanks
// (a word wider than width alone is broken), each later line indented by
// indent blanks.
func wrapWords(s string, width, indent int) []string {
	if width-indent < 8 {
		indent = 0
	}
	first := strings.Split(ansi.Wrap(s, width, ""), "\n")
	if len(first) == 1 || indent == 0 {
		return first
	}
	rest := strings.Join(first[1:], " ")
	out := []string{first[0]}
	for _, l := range strings.Split(ansi.Wrap(rest, width-indent, ""), "\n") {
		out = append(out, strings.Repeat(" ", indent)+l)
	}
	return out
}
