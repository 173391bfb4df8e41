package ssh

import "strings"

// Quote returns s as exactly one word of a POSIX shell command line, the
// line ssh hands to the remote login shell. It is the one function owt
// puts an argument through before it goes on that line.
//
// The word is wrapped in single quotes, inside which a POSIX shell
// interprets nothing ($, `, \, ;, newlines, globs, ~ are all literal);
// a single quote itself ends the quoting, is written escaped (\'), and
// the quoting starts again: it's → 'it'\”s'. The empty string is ”.
// No other character needs or gets special treatment, unicode and
// control characters included: a quoted word never runs anything.
//
// A quoted word can still begin with '-', and a program reads that as an
// option: owt only puts user-controlled text on the line after "--" or
// not at all (user text goes on stdin).
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuotePath is Quote for a path on the remote machine, except that a
// leading "~/" (or a path that is just "~") stays the remote user's home:
// it becomes "$HOME"/ followed by the quoted rest, the only expansion
// owt ever lets the remote shell make.
func QuotePath(p string) string {
	switch {
	case p == "~":
		return `"$HOME"`
	case strings.HasPrefix(p, "~/"):
		return `"$HOME"/` + Quote(p[2:])
	default:
		return Quote(p)
	}
}

// Line is the remote command line of argv: every word quoted, joined by
// spaces.
func Line(argv ...string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = Quote(a)
	}
	return strings.Join(q, " ")
}
