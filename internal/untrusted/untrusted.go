package untrusted

import (
	"bytes"
	"encoding/json"
)

// Untrusted is text owt did not write: an agent's words or screen, a
// file name or subject from git, an answer of gh, a task someone else
// typed. It may hold control characters that would drive the terminal
// it is drawn on. It has no conversion to string: it leaves only made
// safe — Line (one line to draw), Block (lines to draw), Short (a first
// line cut to a width) or Typed (to type into an agent) — so drawing it
// raw does not compile, and %s or %v print its Line.
type Untrusted struct{ s string }

// From marks s as untrusted.
func From(s string) Untrusted { return Untrusted{s} }

// Line is the text safe to draw on one line (CleanLine).
func (u Untrusted) Line() string { return CleanLine(u.s) }

// Block is the text safe to draw over several lines (Clean).
func (u Untrusted) Block() string { return Clean(u.s) }

// Short is the first non-empty line, safe, cut to width (ShortLine).
func (u Untrusted) Short(width int) string { return ShortLine(u.s, width) }

// Typed is the text safe to type into an agent's input (Clean): what
// the user or a peer asked to tell it, without keys it would act on.
func (u Untrusted) Typed() string { return Clean(u.s) }

// String is Line: fmt's %s and %v print the text safely.
func (u Untrusted) String() string { return u.Line() }

// Empty reports whether there is no text at all.
func (u Untrusted) Empty() bool { return u.s == "" }

// Equal reports whether two texts are the same, byte for byte.
func (u Untrusted) Equal(v Untrusted) bool { return u.s == v.s }

// MarshalJSON keeps the text as it came (state files hold it raw; it is
// cleaned where it is drawn), byte for byte as a string field would be:
// HTML characters are escaped only when the caller's encoder escapes
// them (encoding/json does that to a marshaller's output), so --json
// output that turns escaping off shows "<" and "&" as they are.
func (u Untrusted) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(u.s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads a JSON string.
func (u *Untrusted) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &u.s) }
