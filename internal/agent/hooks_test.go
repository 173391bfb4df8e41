package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
)

// commands returns every hook command of event in a settings file.
func commands(t *testing.T, data []byte, event string) []string {
	t.Helper()
	var s struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(data, &s), string(data))
	var groups []struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if raw, ok := s.Hooks[event]; ok {
		require.NoError(t, json.Unmarshal(raw, &groups))
	}
	var out []string
	for _, g := range groups {
		for _, h := range g.Hooks {
			out = append(out, h.Command)
		}
	}
	return out
}

func TestMergeHookSettingsIntoNothing(t *testing.T) {
	for kind, spec := range HookFiles {
		data, err := MergeHookSettings(nil, kind, "/opt/owt bin/owt")
		require.NoError(t, err)
		for _, ev := range spec.Events {
			require.Equal(t, []string{"'/opt/owt bin/owt' hook " + kind + " " + ev}, commands(t, data, ev), kind)
		}
	}
}

func TestMergeHookSettingsKeepsTheUsersAndNeverDuplicates(t *testing.T) {
	user := `{
  "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {
    "Stop": [
      {"matcher": "", "hooks": [{"type": "command", "command": "say done"}, {"type": "command", "command": "/old/place/owt hook claude Stop"}]}
    ],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]
  },
  "model": "opus"
}`
	once, err := MergeHookSettings([]byte(user), "claude", "/usr/local/bin/owt")
	require.NoError(t, err)
	twice, err := MergeHookSettings(once, "claude", "/usr/local/bin/owt")
	require.NoError(t, err)
	require.Equal(t, string(once), string(twice), "a second run changes nothing")

	require.Equal(t, []string{"say done", "/usr/local/bin/owt hook claude Stop"}, commands(t, once, "Stop"),
		"the user's hook stays, owt's old one (another path) is replaced")
	require.Equal(t, []string{"./guard.sh", "/usr/local/bin/owt hook claude PreToolUse"}, commands(t, once, "PreToolUse"))
	require.Equal(t, []string{"echo hi"}, commands(t, once, "SessionStart"))

	var m map[string]any
	require.NoError(t, json.Unmarshal(once, &m))
	require.Equal(t, "opus", m["model"])
	require.Equal(t, map[string]any{"allow": []any{"Bash(npm test)"}}, m["permissions"])
	require.Less(t, strings.Index(string(once), `"permissions"`), strings.Index(string(once), `"hooks"`), "key order kept")
	require.Less(t, strings.Index(string(once), `"hooks"`), strings.Index(string(once), `"model"`))
	require.Contains(t, string(once), `"matcher": "Bash"`, "the user's groups are kept as written")
	require.Contains(t, string(once), `"timeout": 5`)
}

func TestMergeHookSettingsGeminiFlagsAndBadFiles(t *testing.T) {
	data, err := MergeHookSettings([]byte(`{"hooks": {"enabled": true}, "general": {"vimMode": true}}`), "gemini", "/bin/owt")
	require.NoError(t, err)
	require.Contains(t, string(data), `"enabled": true`)
	require.Equal(t, []string{"/bin/owt hook gemini AfterAgent"}, commands(t, data, "AfterAgent"))
	require.Contains(t, string(data), `"timeout": 10000`, "gemini counts milliseconds")

	for _, bad := range []string{`[1]`, `{"hooks": 3}`, `{"hooks": {"Stop": {"x": 1}}}`, `{not json`} {
		_, err := MergeHookSettings([]byte(bad), "claude", "/bin/owt")
		require.Error(t, err, bad)
	}
	_, err = MergeHookSettings(nil, "codex", "/bin/owt")
	require.Error(t, err, "codex has no settings file")
}

func TestMergeHookSettingsLeavesNonGroupEntries(t *testing.T) {
	// Gemini keeps its hook switches beside the events: "disabled" is a
	// list of names, not of hook groups.
	user := `{"hooks": {"disabled": ["lint-on-save"], "enabled": true, "BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}}`
	once, err := MergeHookSettings([]byte(user), "gemini", "/bin/owt")
	require.NoError(t, err)
	twice, err := MergeHookSettings(once, "gemini", "/bin/owt")
	require.NoError(t, err)
	require.Equal(t, string(once), string(twice))
	require.Equal(t, []string{"./lint.sh", "/bin/owt hook gemini BeforeTool"}, commands(t, once, "BeforeTool"))
	var m struct {
		Hooks map[string]any `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(once, &m))
	require.Equal(t, []any{"lint-on-save"}, m.Hooks["disabled"])
	require.Equal(t, true, m.Hooks["enabled"])

	stripped, err := StripHookSettings(once)
	require.NoError(t, err)
	require.True(t, SameSettings(stripped, []byte(user)), "without owt's hooks it is the user's file again:\n%s", stripped)
}

func TestIsOwtHookCommand(t *testing.T) {
	for _, c := range []string{
		HookCommand("/usr/bin/owt", "claude", "Stop"),
		HookCommand("/home/ann/my tools/owt", "gemini", "AfterAgent"),
		HookCommand("/tmp/it's/owt", "droid", "Notification"),
		"owt hook claude Stop",
	} {
		require.True(t, IsOwtHookCommand(c), c)
	}
	for _, c := range []string{"say done", "/usr/bin/owt list", "/usr/bin/owt hook claude Stop; rm -rf /", "/usr/bin/not-owt hook claude Stop", "'unterminated hook claude Stop"} {
		require.False(t, IsOwtHookCommand(c), c)
	}
}

func TestCodexNotifyArgsAreTOML(t *testing.T) {
	args, err := CodexNotifyArgs(`/opt/my "owt"/owt`, []string{"notify-send", "<done> & more"})
	require.NoError(t, err)
	require.Equal(t, "-c", args[0])
	var v struct{ Notify []string }
	_, err = toml.Decode(strings.Replace(args[1], "notify=", "notify = ", 1), &v)
	require.NoError(t, err, args[1])
	require.Equal(t, []string{`/opt/my "owt"/owt`, "hook", "codex", "notify", "notify-send", "<done> & more"}, v.Notify)
}

func TestCodexUserNotifyIsChainedNotLost(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	t.Setenv("CODEX_HOME", home)
	require.Nil(t, CodexUserNotify(repo))
	require.NoError(t, os.WriteFile(filepath.Join(home, "config.toml"), []byte("model = \"o3\"\nnotify = [\"terminal-notifier\", \"-title\", \"Codex\"]\n[tui]\nx = 1\n"), 0o644))
	require.Equal(t, []string{"terminal-notifier", "-title", "Codex"}, CodexUserNotify(repo))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".codex"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".codex", "config.toml"), []byte("notify = [\"/usr/bin/owt\", \"hook\", \"codex\", \"notify\"]\n"), 0o644))
	require.Nil(t, CodexUserNotify(repo), "owt's own notify is not chained to itself")

	p := Profile{Name: "codex", Command: []string{"codex"}, Hooks: "codex", Prompt: PromptArg}
	argv, err := p.Argv("do it", false, false)
	require.NoError(t, err)
	extra, err := p.HookArgs("/usr/bin/owt", t.TempDir())
	require.NoError(t, err)
	require.Equal(t, append(append([]string{"codex"}, extra...), "do it"), p.WithArgs(argv, extra), "flags go before the prompt")
}

func TestCodexUserHooksMergeAndComeOutAgain(t *testing.T) {
	user := []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "my-stop"}]}]}, "x": 1}`)
	merged, err := MergeHooks(user, CodexUserHooks, "codex", "/opt/owt")
	require.NoError(t, err)
	require.True(t, HasOwtHooks(merged))
	require.Contains(t, string(merged), `"/opt/owt hook codex Interrupt"`)
	again, err := MergeHooks(merged, CodexUserHooks, "codex", "/new/owt")
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(again), "hook codex Stop"), "replaced, never duplicated")

	out, err := RemoveHooks(again)
	require.NoError(t, err)
	require.False(t, HasOwtHooks(out))
	require.Contains(t, string(out), `"my-stop"`)
	require.Contains(t, string(out), `"x": 1`)
	require.NotContains(t, string(out), "UserPromptSubmit", "events left empty go")
}

// TestHooksRunOwtAndAnOlderOwtsOwtHookIsOwts: the hook settings run owt
// itself, even with an owt-hook beside it (left by an older owt). Settings
// an older owt wrote, naming its owt-hook, are owt's own: merged over, not
// kept as the user's, and stale, so the next start writes owt's command.
func TestHooksRunOwtAndAnOlderOwtsOwtHookIsOwts(t *testing.T) {
	dir := t.TempDir()
	owt := filepath.Join(dir, "owt")
	hook := filepath.Join(dir, "owt-hook")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755))
	require.Equal(t, owt+" hook gemini AfterAgent", HookCommand(owt, "gemini", "AfterAgent"))
	args, err := CodexNotifyArgs(owt, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"-c", `notify=["` + owt + `","hook","codex","notify"]`}, args)

	older := []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "my-stop"}]},
		{"hooks": [{"type": "command", "command": "` + hook + ` hook claude Stop", "timeout": 10}]}]}}`)
	require.True(t, IsOwtHookCommand(hook+" hook claude Stop"))
	require.True(t, HasOwtHooks(older))
	require.True(t, StaleOwtHooks(older, "claude", owt), "an older owt's owt-hook command is stale")
	merged, err := MergeHookSettings(older, "claude", owt)
	require.NoError(t, err)
	require.NotContains(t, string(merged), "owt-hook", "owt's command replaces the older one")
	require.Contains(t, string(merged), `"my-stop"`, "the user's hook stays")
	require.False(t, StaleOwtHooks(merged, "claude", owt))
	require.True(t, StaleOwtHooks(merged, "claude", "/elsewhere/owt"), "owt at another path")
	out, err := RemoveHooks(older)
	require.NoError(t, err)
	require.False(t, HasOwtHooks(out))
	require.Contains(t, string(out), `"my-stop"`)
}

// TestCodexUserHooksTimeoutsWithinCodexCaps: Codex caps the timeout of
// its Interrupt and SessionEnd hooks at 3 s and warns at every start
// about a larger one ("clamping Interrupt hook timeout to 3s"): owt
// writes what Codex accepts.
func TestCodexUserHooksTimeoutsWithinCodexCaps(t *testing.T) {
	merged, err := MergeHooks(nil, CodexUserHooks, "codex", "/opt/owt")
	require.NoError(t, err)
	var f struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(merged, &f))
	caps := map[string]int{"Interrupt": 3, "SessionEnd": 3}
	for _, event := range CodexUserHooks.Events {
		require.Len(t, f.Hooks[event], 1, event)
		cmd := f.Hooks[event][0].Hooks[0]
		require.Positive(t, cmd.Timeout, event)
		if max, ok := caps[event]; ok {
			require.LessOrEqual(t, cmd.Timeout, max, "%s: codex clamps it and warns at each start", event)
		} else {
			require.Equal(t, 10, cmd.Timeout, event)
		}
	}
}

// TestCodexHooksOverCaps names the events whose owt hook an older owt
// wrote with a timeout Codex clamps, and none of the user's.
func TestCodexHooksOverCaps(t *testing.T) {
	merged, err := MergeHooks(nil, CodexUserHooks, "codex", "/opt/owt")
	require.NoError(t, err)
	require.Empty(t, CodexHooksOverCaps(merged))
	old := CodexUserHooks
	old.EventTimeouts = nil // every event 10 s, as before
	merged, err = MergeHooks([]byte(`{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "mine", "timeout": 60}]}]}}`), old, "codex", "/opt/owt")
	require.NoError(t, err)
	require.Equal(t, []string{"Interrupt", "SessionEnd"}, CodexHooksOverCaps(merged))
}
