package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// userSettings are settings files as teams commit them.
var userSettings = map[string]string{
	"none":  ``,
	"empty": `{}`,
	"plain": `{"general": {"vimMode": true}, "model": {"name": "gemini-2.5-pro"}}`,
	"user hooks": `{
    "general": {"vimMode": true},
    "hooks": {
        "AfterAgent": [{"matcher": "", "hooks": [{"type": "command", "command": "echo done", "timeout": 5000}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]
    }
}`,
	"gemini flags": `{"hooks": {"enabled": true}, "mcpServers": {"db": {"command": "db-mcp", "args": ["--ro"]}}}`,
	"empty hooks":  `{"hooks": {}, "x": 1.5}`,
	"null events":  `{"hooks": {"Stop": null, "Notification": []}}`,
}

func TestStripHookSettingsUndoesTheInstallerForEveryToolAndFile(t *testing.T) {
	for kind := range HookFiles {
		for name, user := range userSettings {
			merged, err := MergeHookSettings([]byte(user), kind, "/opt/owt bin/owt")
			require.NoError(t, err, name)
			require.Contains(t, string(merged), "hook "+kind, name)
			stripped, err := StripHookSettings(merged)
			require.NoError(t, err, "%s %s", kind, name)
			require.NotContains(t, string(stripped), "owt", "%s %s: %s", kind, name, stripped)
			require.True(t, SameSettings(stripped, []byte(user)), "%s %s: %s", kind, name, stripped)

			// The agent adds a key: that is a difference, and it survives.
			var m map[string]any
			require.NoError(t, json.Unmarshal(merged, &m))
			m["mcpServers"] = map[string]any{"added": map[string]any{"command": "by-agent"}}
			edited, err := json.Marshal(m)
			require.NoError(t, err)
			stripped, err = StripHookSettings(edited)
			require.NoError(t, err)
			require.False(t, SameSettings(stripped, []byte(user)), "%s %s", kind, name)
			require.Contains(t, string(stripped), "by-agent")
			require.NotContains(t, string(stripped), "owt hook")
		}
	}
}

func TestStripHookSettingsKeepsTheUsersHooksBesideOwts(t *testing.T) {
	// owt's command from an older binary path, in the user's own group,
	// beside the user's: only owt's goes, the group stays.
	data := `{
  "hooks": {
    "Stop": [
      {"matcher": "", "hooks": [{"type": "command", "command": "say done"}, {"type": "command", "command": "/old/place/owt hook claude Stop"}]},
      {"matcher": "", "hooks": [{"type": "command", "command": "'/new place/owt' hook claude Stop", "timeout": 10}]}
    ],
    "PreToolUse": [{"matcher": "", "hooks": [{"type": "command", "command": "/usr/bin/owt hook claude PreToolUse"}]}]
  },
  "model": "opus"
}`
	out, err := StripHookSettings([]byte(data))
	require.NoError(t, err)
	require.Equal(t, []string{"say done"}, commands(t, out, "Stop"))
	require.NotContains(t, string(out), "PreToolUse", "an event that only held owt's command goes")
	require.True(t, SameSettings(out, []byte(`{"model": "opus", "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "say done"}]}]}}`)), string(out))
	require.Less(t, strings.Index(string(out), `"hooks"`), strings.Index(string(out), `"model"`), "key order kept")

	// Commands that only look like owt's stay.
	lookalike := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/usr/bin/owt hook claude Stop; rm -rf /"}, {"type": "command", "command": "/usr/bin/owt list"}]}]}}`
	out, err = StripHookSettings([]byte(lookalike))
	require.NoError(t, err)
	require.True(t, SameSettings(out, []byte(lookalike)), string(out))
}

func TestStripHookSettingsBadFiles(t *testing.T) {
	for _, bad := range []string{`[1]`, `{"hooks": 3}`, `{not json`, `{"a": 1} {"b": 2}`} {
		_, err := StripHookSettings([]byte(bad))
		require.Error(t, err, bad)
	}
	// An entry that is no list of hook groups holds none of owt's: kept.
	out, err := StripHookSettings([]byte(`{"hooks": {"Stop": [3], "disabled": ["x"]}}`))
	require.NoError(t, err)
	require.JSONEq(t, `{"hooks": {"Stop": [3], "disabled": ["x"]}}`, string(out))
	out, err = StripHookSettings([]byte("  \n"))
	require.NoError(t, err)
	require.JSONEq(t, `{}`, string(out), "an empty file is no settings")
}

func TestSameSettings(t *testing.T) {
	same := [][2]string{
		{`{"a": 1, "b": [1, 2]}`, "{\n  \"b\": [1,2],\n  \"a\": 1\n}\n"},
		{`{"a": 1}`, `{"a": 1, "hooks": {}}`},
		{`{"a": 1}`, `{"a": 1, "hooks": null}`},
		{`{"hooks": {"Stop": []}}`, `{}`},
		{``, `{}`},
	}
	for _, c := range same {
		require.True(t, SameSettings([]byte(c[0]), []byte(c[1])), "%s == %s", c[0], c[1])
	}
	differ := [][2]string{
		{`{"a": 1}`, `{"a": 2}`},
		{`{"a": 1}`, `{"a": 1, "b": null}`},
		{`{"a": [1, 2]}`, `{"a": [2, 1]}`},
		{`{"hooks": {"enabled": false}}`, `{}`},
		{`{"a": 1}`, `{"a": 1`},
		{`{not json`, `{not json`},
	}
	for _, c := range differ {
		require.False(t, SameSettings([]byte(c[0]), []byte(c[1])), "%s != %s", c[0], c[1])
	}
}

func TestFormatSettingsLike(t *testing.T) {
	head := "{\n    \"general\": {\n        \"vimMode\": true\n    }\n}"
	// Meaning the same: HEAD's bytes, so nothing changes in a commit.
	require.Equal(t, head, string(FormatSettingsLike([]byte(`{"general": {"vimMode": true}}`+"\n"), []byte(head))))
	// Different: HEAD's indentation, and no final newline, like HEAD.
	got := FormatSettingsLike([]byte("{\n  \"general\": {\n    \"vimMode\": false\n  }\n}\n"), []byte(head))
	require.Equal(t, "{\n    \"general\": {\n        \"vimMode\": false\n    }\n}", string(got))
	// A one-line HEAD gets one line.
	got = FormatSettingsLike([]byte("{\n  \"a\": 2\n}\n"), []byte(`{"a": 1}`+"\n"))
	require.Equal(t, `{"a":2}`+"\n", string(got))
	// Nothing to be like: unchanged.
	require.Equal(t, "{\n  \"a\": 2\n}\n", string(FormatSettingsLike([]byte("{\n  \"a\": 2\n}\n"), nil)))
	require.Equal(t, "{bad", string(FormatSettingsLike([]byte("{bad"), []byte(head))))
}
