package tmux

import (
	"fmt"
	"strings"
)

// PopupVersion is the first tmux with display-popup (3.2).
var PopupVersion = [2]int{3, 2}

// SupportsPopup reports whether tmux major.minor has display-popup.
func SupportsPopup(major, minor int) bool {
	return major > PopupVersion[0] || major == PopupVersion[0] && minor >= PopupVersion[1]
}

// Popup describes a program shown in a popup over the client, or, on a tmux
// without popups, in a new window.
type Popup struct {
	Width, Height string // columns/lines or a percentage ("80%"); "" = tmux's default
	// Dir is the start directory; tmux expands formats in it, so
	// "#{pane_current_path}" starts the program where the user is.
	Dir string
	// Argv is the program and its arguments. They are quoted for the shell
	// that display-popup and new-window hand their command to; they must
	// never hold user text (a path and fixed words only).
	Argv []string
}

// PopupCommand is the tmux command (as argv for tmux's parser) that runs p
// in a popup that closes when the program exits, or in a new window named
// "owt" when popups is false.
func PopupCommand(p Popup, popups bool) []string {
	shell := ShellCommand(p.Argv)
	if !popups {
		cmd := []string{"new-window", "-n", "owt"}
		if p.Dir != "" {
			cmd = append(cmd, "-c", p.Dir)
		}
		return append(cmd, shell)
	}
	cmd := []string{"display-popup", "-E"}
	if p.Width != "" {
		cmd = append(cmd, "-w", p.Width)
	}
	if p.Height != "" {
		cmd = append(cmd, "-h", p.Height)
	}
	if p.Dir != "" {
		cmd = append(cmd, "-d", p.Dir)
	}
	return append(cmd, shell)
}

// CommandLine joins a tmux command's words into one line for tmux's own
// parser (a command that if-shell runs, or a line of a config file): a
// word of plain characters stays as it is, any other goes in double
// quotes with backslash, double quote and dollar escaped, and control
// characters and bytes past ASCII written as octal escapes (inside quotes
// tmux's parser drops the blanks after a newline, and a line that then
// starts with #; it reads 0xff as the end of its input), so
// tmux reads back the same word and expands no variable or home in it.
// Formats (#{…}) stay for the command that expands them.
func CommandLine(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if w == "" || strings.Trim(w, parserSafe) != "" {
			var b strings.Builder
			b.WriteByte('"')
			for _, c := range []byte(w) {
				switch {
				case c == '\\' || c == '"' || c == '$':
					b.WriteByte('\\')
					b.WriteByte(c)
				case c < 0x20 || c >= 0x7f:
					// tmux's lexer reads a byte as a signed char: 0xff
					// would end the word as EOF does.
					fmt.Fprintf(&b, "\\%03o", c)
				default:
					b.WriteByte(c)
				}
			}
			b.WriteByte('"')
			w = b.String()
		}
		out[i] = w
	}
	return strings.Join(out, " ")
}

const parserSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+,:@%"

// ShellCommand joins argv into one command line for sh, each word quoted
// when it needs to be.
func ShellCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = ShellQuote(a)
	}
	return strings.Join(words, " ")
}

// ShellQuote quotes s for sh: plain words stay as they are, anything else
// goes in single quotes, each ' inside written as: end the quote, a
// backslash-escaped quote, quote again.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, shellSafe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+,:@%"
