// Package untrusted makes text owt did not write (an agent's words, gh's
// errors, a task, a file name) safe to draw or to type: it sits below
// every other package, so each can clean what it shows the same way.
//
// The rule: a carrier of outside text (a field of a record or of gh's
// answer, a value read from an agent, a pane, git or gh) is Untrusted,
// made with From where the outside world is read, and it leaves only
// made safe — Line, Block, Short or Typed (%s and %v print its Line).
// Drawing it raw does not compile. The functions below (Clean, CleanLine,
// ShortLine) are for what is not a carrier: an error's text, a string owt
// built from several pieces, a cleaner of its own.
package untrusted

import (
	"fmt"
	"strings"
)

// IsControl reports whether r is a control character other than newline
// and tab (C0, DEL, C1): one that would drive a terminal.
func IsControl(r rune) bool {
	return r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0)
}

// Clean removes control characters from text bound for an agent's input,
// except tab and newline (a carriage return becomes a newline): ESC,
// Ctrl-C and friends would arrive as keys — end a bracketed paste early
// and submit the rest, interrupt the agent, or quit it.
func Clean(s string) string {
	if strings.IndexFunc(s, IsControl) < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	return strings.Map(func(r rune) rune {
		if IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// CleanLine is s made safe to draw on one line: Clean drops its control
// characters (an escape sequence's ESC goes, the rest is inert text), and
// line breaks and tabs become spaces, so it can neither move the cursor
// nor restyle the screen.
func CleanLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, Clean(s))
}

// ShortLine is s's first non-empty line (a line ends at \n or \r) without
// control characters (a tab is a space), trimmed, at most width bytes cut
// at a rune, with " …" when anything was left out: a gh error or a
// message on one line of a terminal or a log.
func ShortLine(s string, width int) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	var line string
	for i, l := range lines {
		if l = strings.TrimSpace(CleanLine(l)); l != "" {
			line, lines = l, lines[i+1:]
			break
		}
	}
	cut := line != "" && strings.TrimSpace(CleanLine(strings.Join(lines, ""))) != ""
	if len(line) > width {
		line, cut = strings.ToValidUTF8(line[:width], ""), true
	}
	if cut {
		line += " …"
	}
	return line
}

// Some names the first n items joined by ", " and then how many more
// there are ("a, b, c and 2995 more"), so no list owt prints grows with
// the number of files in a repository.
// Items are often file names, which are anyone's text: each is drawn as
// one inert line (CleanLine).
func Some(items []string, n int) string {
	shown := items
	if len(items) > n {
		shown = items[:n]
	}
	clean := make([]string, len(shown))
	for i, it := range shown {
		clean[i] = CleanLine(it)
	}
	if len(items) <= n {
		return strings.Join(clean, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(clean, ", "), len(items)-n)
}

// StripEscapes removes whole terminal escape sequences from s — CSI
// (ESC [ … final, or C1 0x9b …), OSC, DCS, SOS, PM and APC strings (up to
// BEL or ESC \), and two-byte ESC sequences — where Clean drops only
// their ESC and leaves "[31m" behind as text. For outside text that
// becomes a name or a prompt (an issue's title): the parameters are
// nobody's words.
func StripEscapes(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b\u009d\u0090") {
		return s
	}
	var b strings.Builder
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[', r == 0x9b:
			if r == 0x1b {
				i++
			}
			// Parameters and intermediates (0x20–0x3f), then one final
			// byte (0x40–0x7e).
			for i+1 < len(rs) && rs[i+1] >= 0x20 && rs[i+1] <= 0x3f {
				i++
			}
			if i+1 < len(rs) && rs[i+1] >= 0x40 && rs[i+1] <= 0x7e {
				i++
			}
		case r == 0x1b && i+1 < len(rs) && strings.ContainsRune("]PX^_", rs[i+1]), r == 0x9d, r == 0x90:
			if r == 0x1b {
				i++
			}
			// A string up to BEL, ST (ESC \ or 0x9c), or the end.
			for i+1 < len(rs) {
				i++
				if rs[i] == 0x07 || rs[i] == 0x9c {
					break
				}
				if rs[i] == 0x1b && i+1 < len(rs) && rs[i+1] == '\\' {
					i++
					break
				}
			}
		case r == 0x1b:
			if i+1 < len(rs) && rs[i+1] >= 0x20 && rs[i+1] <= 0x7e {
				i++ // ESC and the one character it introduces (ESC c, ESC 7 …)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
