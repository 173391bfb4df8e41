package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
)

// HookFile says where a tool reads the hooks owt installs in a worktree
// and which of its events owt listens to.
type HookFile struct {
	// Path is relative to the worktree root, slash-separated.
	Path string
	// Events are the tool's event names that get an "owt hook" command.
	Events []string
	// Timeout is the value of each command's "timeout" field, in the tool's
	// own unit (seconds for Claude and Droid, milliseconds for Gemini).
	Timeout int
	// EventTimeouts are the events whose timeout is lower than Timeout:
	// a tool that caps an event's timeout warns at each start about a
	// larger one.
	EventTimeouts map[string]int
	// StatusLine: owt's statusLine command goes into the file too
	// (Claude's usage windows; statusline.go).
	StatusLine bool
}

// TimeoutOf is the timeout owt writes for event.
func (h HookFile) TimeoutOf(event string) int {
	if t, ok := h.EventTimeouts[event]; ok {
		return t
	}
	return h.Timeout
}

// HookFiles maps a profile's Hooks kind to the settings file owt merges its
// hooks into. Codex has none: its notify program is passed with -c (a
// linked worktree reads project .codex/ from the main checkout).
//
// Sources: Claude Code hooks reference (settings.local.json is the
// personal, uncommitted project file); Factory "Hooks" (docs.factory.ai/
// harness/hooks: project hooks live in .factory/hooks.json, and when that
// is absent in the "hooks" key of .factory/settings.json, which is also
// the only place droid 0.186 actually reads, Factory-AI/factory#3;
// settings.local.json is no longer read; Claude's event names and
// protocol); Gemini
// CLI hooks reference (.gemini/settings.json, timeouts in milliseconds,
// stdout must be JSON or nothing).
var HookFiles = map[string]HookFile{
	"claude": {
		Path:       ".claude/settings.local.json",
		Events:     []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Notification", "Stop", "StopFailure", "SessionEnd"},
		Timeout:    10,
		StatusLine: true,
	},
	"droid": {
		Path:    ".factory/settings.json",
		Events:  []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop", "SessionEnd"},
		Timeout: 10,
	},
	"gemini": {
		Path:    ".gemini/settings.json",
		Events:  []string{"BeforeAgent", "AfterAgent", "BeforeTool", "AfterTool", "Notification", "SessionEnd"},
		Timeout: 10000,
	},
}

// HookCommand is the shell command a tool runs for event: owt by absolute
// path, quoted for sh, "hook", and the tool and event as plain words.
func HookCommand(owt, kind, event string) string {
	return ShellQuote(owt) + " hook " + kind + " " + event
}

// IsOwtHookCommand reports whether cmd is a command HookCommand made, for
// any owt binary (the path may have changed since it was installed), and
// for the owt-hook program an older owt installed beside owt and named in
// the settings it wrote.
func IsOwtHookCommand(cmd string) bool {
	prog, rest, ok := firstShellWord(strings.TrimSpace(cmd))
	if !ok || !strings.HasPrefix(filepath.Base(prog), "owt") {
		return false
	}
	f := strings.Fields(rest)
	return len(f) == 3 && f[0] == "hook" && isWord(f[1]) && isWord(f[2])
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return s != ""
}

// ShellQuote quotes s as one sh word.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == '+' || r == ',' || r == ':' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// firstShellWord splits off the first word of s as ShellQuote writes it
// (bare, or single-quoted pieces joined by \').
func firstShellWord(s string) (word, rest string, ok bool) {
	var b strings.Builder
	i := 0
	for i < len(s) && s[i] != ' ' && s[i] != '\t' {
		switch {
		case s[i] == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return "", "", false
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case s[i] == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i += 2
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String(), s[i:], b.Len() > 0
}

// The hooks shape shared by Claude, Droid and Gemini: {"hooks": {Event:
// [{"matcher": …, "hooks": [{"type": "command", "command": …}]}]}}. Groups
// and commands are kept as raw JSON so the user's stay byte for byte.
type hookGroup struct {
	Hooks []json.RawMessage `json:"hooks"`
}

// MergeHookSettings returns the settings file data with owt's hooks for
// kind merged in. Everything else in the file is kept: other keys, the
// user's hooks (even in the same matcher group), their order. owt's own
// commands from an earlier run are replaced, never duplicated. data may be
// empty (no file yet).
func MergeHookSettings(data []byte, kind, owt string) ([]byte, error) {
	spec, ok := HookFiles[kind]
	if !ok {
		return nil, fmt.Errorf("no hook settings file for %q", kind)
	}
	return MergeHooks(data, spec, kind, owt)
}

// MergeHooks is MergeHookSettings for the hooks file spec describes.
func MergeHooks(data []byte, spec HookFile, kind, owt string) ([]byte, error) {
	top := &orderedObject{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := top.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("%s is not a JSON object: %w", spec.Path, err)
		}
	}
	hooks := &orderedObject{}
	if raw, ok := top.Get("hooks"); ok && !isNull(raw) {
		if err := hooks.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("%s: \"hooks\" is not an object: %w", spec.Path, err)
		}
	}
	if err := dropOwt(hooks); err != nil {
		return nil, fmt.Errorf("%s: %w", spec.Path, err)
	}
	// Then add one group per event with owt's command.
	for _, event := range spec.Events {
		var groups []json.RawMessage
		if raw, ok := hooks.Get(event); ok && !isNull(raw) {
			if groups, ok = hookGroups(raw); !ok {
				return nil, fmt.Errorf("%s: hooks.%s is not a list of hook groups", spec.Path, event)
			}
		}
		g, err := marshalNoEscape(owtHookGroup{
			Hooks: []owtHookCommand{{Type: "command", Command: HookCommand(owt, kind, event), Timeout: spec.TimeoutOf(event)}},
		})
		if err != nil {
			return nil, err
		}
		if err := hooks.SetValue(event, append(groups, g)); err != nil {
			return nil, err
		}
	}
	if err := top.SetValue("hooks", hooks); err != nil {
		return nil, err
	}
	if spec.StatusLine {
		if err := mergeStatusLine(top, owt); err != nil {
			return nil, err
		}
	}
	return indentSettings(top)
}

// dropOwt removes owt's commands from every event of hooks, keeping the
// user's, and the events left empty.
func dropOwt(hooks *orderedObject) error {
	for _, event := range hooks.Keys() {
		raw, _ := hooks.Get(event)
		groups, ok := hookGroups(raw)
		if !ok {
			continue // not an event's groups (Gemini keeps "disabled" here): leave it
		}
		kept, changed, err := withoutOwt(groups)
		if err != nil {
			return fmt.Errorf("hooks.%s: %w", event, err)
		}
		switch {
		case !changed:
		case len(kept) == 0:
			hooks.Delete(event)
		default:
			if err := hooks.SetValue(event, kept); err != nil {
				return err
			}
		}
	}
	return nil
}

// owtHookGroup is the group owt adds: every tool, matcher "" (all).
type owtHookGroup struct {
	Matcher string           `json:"matcher"`
	Hooks   []owtHookCommand `json:"hooks"`
}

type owtHookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// hookGroups returns raw as an event's list of hook groups, or false when
// it is something else (a flag, a list of names): every element must be
// an object.
func hookGroups(raw json.RawMessage) ([]json.RawMessage, bool) {
	var groups []json.RawMessage
	if json.Unmarshal(raw, &groups) != nil {
		return nil, false
	}
	for _, g := range groups {
		if t := bytes.TrimSpace(g); len(t) == 0 || t[0] != '{' {
			return nil, false
		}
	}
	return groups, true
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// withoutOwt removes owt's commands from groups, and the groups that held
// nothing else. Groups without owt's commands are returned untouched.
func withoutOwt(groups []json.RawMessage) ([]json.RawMessage, bool, error) {
	var kept []json.RawMessage
	changed := false
	for _, raw := range groups {
		var g hookGroup
		if err := json.Unmarshal(raw, &g); err != nil {
			return nil, false, fmt.Errorf("a hook group is not an object: %w", err)
		}
		var keep []json.RawMessage
		for _, c := range g.Hooks {
			var cmd struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(c, &cmd) == nil && IsOwtHookCommand(cmd.Command) {
				continue
			}
			keep = append(keep, c)
		}
		if len(keep) == len(g.Hooks) {
			kept = append(kept, raw)
			continue
		}
		changed = true
		if len(keep) == 0 {
			continue // the group only held owt's command
		}
		obj := &orderedObject{}
		if err := obj.UnmarshalJSON(raw); err != nil {
			return nil, false, err
		}
		if err := obj.SetValue("hooks", keep); err != nil {
			return nil, false, err
		}
		b, err := obj.MarshalJSON()
		if err != nil {
			return nil, false, err
		}
		kept = append(kept, b)
	}
	return kept, changed, nil
}

func marshalNoEscape(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSpace(b.Bytes())), nil
}
