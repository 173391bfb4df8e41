package agent

import (
	"encoding/json"
	"strings"
)

// Claude Code gives its usage windows (rate_limits: five_hour, seven_day)
// only to a statusLine command, on stdin, at each change of its screen
// (2.1.330; package usage says the shape). So owt registers its own,
// "owt hook claude statusline", in the worktree's .claude/settings.local.json
// beside its hooks. That file outranks the project's .claude/settings.json
// and the user's ~/.claude/settings.json, so a statusLine the user set
// there would be hidden: owt's command runs that one itself, with the
// same JSON, and prints what it prints (package hook, StatusLine). A
// statusLine the user put into settings.local.json itself is theirs in
// that very file: owt leaves it, and reads no windows for that agent,
// rather than change a line the user wrote where owt writes.

// StatusLineCommand is the statusLine command owt registers: owt by
// absolute path, quoted for sh.
func StatusLineCommand(owt string) string {
	return HookCommand(owt, "claude", StatusLineEvent)
}

// StatusLineEvent is the word "owt hook claude" takes for the statusLine.
const StatusLineEvent = "statusline"

// statusLine is the statusLine setting's shape.
type statusLine struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Padding *int   `json:"padding,omitempty"`
}

// IsOwtStatusLine reports whether a statusLine setting is one owt wrote,
// for any owt binary.
func IsOwtStatusLine(raw json.RawMessage) bool {
	var s statusLine
	if json.Unmarshal(raw, &s) != nil {
		return false
	}
	return IsOwtHookCommand(s.Command) && strings.HasSuffix(strings.TrimSpace(s.Command), " claude "+StatusLineEvent)
}

// mergeStatusLine puts owt's statusLine into top unless the user set one
// there.
func mergeStatusLine(top *orderedObject, owt string) error {
	if raw, ok := top.Get("statusLine"); ok && !isNull(raw) && !IsOwtStatusLine(raw) {
		return nil
	}
	zero := 0
	return top.SetValue("statusLine", statusLine{Type: "command", Command: StatusLineCommand(owt), Padding: &zero})
}

// stripStatusLine removes owt's statusLine from top, reporting whether it
// was there.
func stripStatusLine(top *orderedObject) bool {
	if raw, ok := top.Get("statusLine"); ok && IsOwtStatusLine(raw) {
		top.Delete("statusLine")
		return true
	}
	return false
}

// staleStatusLine reports whether a Claude settings file lacks the
// statusLine this owt writes where it would write one: none yet (made by
// an owt before statusLines), or one naming another owt.
func staleStatusLine(data []byte, owt string) bool {
	var f struct {
		StatusLine json.RawMessage `json:"statusLine"`
	}
	if json.Unmarshal(data, &f) != nil {
		return false
	}
	if len(f.StatusLine) == 0 || isNull(f.StatusLine) {
		return true
	}
	if !IsOwtStatusLine(f.StatusLine) {
		return false // the user's own
	}
	var s statusLine
	_ = json.Unmarshal(f.StatusLine, &s)
	return s.Command != StatusLineCommand(owt)
}

// UserStatusLine is the command of a settings file's statusLine when it
// is the user's own (a command, not owt's); "" otherwise.
func UserStatusLine(data []byte) string {
	var f struct {
		StatusLine json.RawMessage `json:"statusLine"`
	}
	if json.Unmarshal(data, &f) != nil || len(f.StatusLine) == 0 || isNull(f.StatusLine) || IsOwtStatusLine(f.StatusLine) {
		return ""
	}
	var s statusLine
	if json.Unmarshal(f.StatusLine, &s) != nil || s.Type != "command" {
		return ""
	}
	return strings.TrimSpace(s.Command)
}
