package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
)

// StripHookSettings returns settings data without owt's hook commands and
// owt's MCP server: the inverse of MergeHookSettings and MergeMCPSettings,
// for any tool (owt's commands are the ones
// IsOwtHookCommand recognises, whatever owt binary they name). Everything
// else is kept: other keys, the user's hooks, their order. An event whose
// list only held owt's commands is dropped, and so is "hooks" when owt's
// removal leaves it empty. The result is indented like MergeHookSettings'.
//
// owt uses it to tell an agent's edits of a tracked settings file apart
// from the hooks owt put there, and to commit those edits without them.
func StripHookSettings(data []byte) ([]byte, error) {
	top := &orderedObject{}
	if len(bytes.TrimSpace(data)) == 0 {
		return []byte("{}\n"), nil // like MergeHookSettings: no settings yet
	}
	if err := top.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("settings file is not a JSON object: %w", err)
	}
	if _, err := stripOwtMCP(top); err != nil {
		return nil, err
	}
	stripStatusLine(top)
	raw, ok := top.Get("hooks")
	if !ok || isNull(raw) {
		return indentSettings(top)
	}
	hooks := &orderedObject{}
	if err := hooks.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("settings file: \"hooks\" is not an object: %w", err)
	}
	removed := false
	for _, event := range hooks.Keys() {
		raw, _ := hooks.Get(event)
		groups, ok := hookGroups(raw)
		if !ok {
			continue // not an event's groups (Gemini keeps "disabled" here): leave it
		}
		kept, changed, err := withoutOwt(groups)
		if err != nil {
			return nil, fmt.Errorf("settings file: hooks.%s: %w", event, err)
		}
		switch {
		case !changed:
		case len(kept) == 0:
			hooks.Delete(event)
			removed = true
		default:
			if err := hooks.SetValue(event, kept); err != nil {
				return nil, err
			}
			removed = true
		}
	}
	switch {
	case !removed:
	case len(hooks.Keys()) == 0:
		top.Delete("hooks")
	default:
		if err := top.SetValue("hooks", hooks); err != nil {
			return nil, err
		}
	}
	return indentSettings(top)
}

func indentSettings(top *orderedObject) ([]byte, error) {
	raw, err := top.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// SameSettings reports whether two settings files mean the same: equal as
// JSON values (key order and layout do not count), where a "hooks" object
// that is null or empty equals none, and so does an event list that is
// null or empty. An empty file equals {} (the tools read it as no
// settings). Data that is not JSON equals nothing.
func SameSettings(a, b []byte) bool {
	x, err1 := settingsValue(a)
	y, err2 := settingsValue(b)
	return err1 == nil && err2 == nil && reflect.DeepEqual(x, y)
}

func settingsValue(data []byte) (any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	top, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	hooks, isObj := top["hooks"].(map[string]any)
	if isObj {
		for event, list := range hooks {
			if l, isList := list.([]any); list == nil || isList && len(l) == 0 {
				delete(hooks, event)
			}
		}
	}
	if h, present := top["hooks"]; present && (h == nil || isObj && len(hooks) == 0) {
		delete(top, "hooks")
	}
	return top, nil
}

// FormatSettingsLike lays out the settings data the way like (another
// version of the same file) is laid out, so committing it changes only the
// lines that differ: like itself, byte for byte, when both mean the same;
// else like's indentation (or one line when like is one line) and its
// final newline or lack of one. data is returned unchanged when either is
// not JSON.
func FormatSettingsLike(data, like []byte) []byte {
	if like == nil {
		return data
	}
	if SameSettings(data, like) {
		return like
	}
	if !json.Valid(data) || !json.Valid(like) {
		return data
	}
	var out bytes.Buffer
	indent, multiline := indentOf(like)
	var err error
	if multiline {
		err = json.Indent(&out, bytes.TrimSpace(data), "", indent)
	} else {
		err = json.Compact(&out, data)
	}
	if err != nil {
		return data
	}
	if bytes.HasSuffix(like, []byte("\n")) {
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// indentOf is the indentation of the first indented line of a JSON file,
// and whether the file spans several lines at all.
func indentOf(data []byte) (string, bool) {
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	if len(lines) < 2 {
		return "", false
	}
	for _, l := range lines[1:] {
		l = bytes.TrimSuffix(l, []byte("\r"))
		n := len(l) - len(bytes.TrimLeft(l, " \t"))
		if n > 0 && n < len(l) {
			return string(l[:n]), true
		}
	}
	return "  ", true
}
