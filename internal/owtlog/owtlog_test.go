package owtlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
)

// reset forgets the format decided on, for a test that decides another,
// and reads the user config as owt's main has it read (config.LogFormat).
func reset(t *testing.T) {
	mu.Lock()
	override, chosen, source = "", "", config.LogFormat
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		override, chosen, source = "", "", nil
		mu.Unlock()
	})
}

func home(t *testing.T, userConfig string) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	xdg.Reload() // the XDG directories are read once, at start
	if userConfig != "" {
		require.NoError(t, os.MkdirAll(filepath.Join(cfg, "owt"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(cfg, "owt", "config.toml"), []byte(userConfig), 0o600))
	}
	reset(t)
}

// Text is the default, and its line is the one owt always wrote: time,
// pid, who, message on one line.
func TestTextIsTheDefaultAndKeepsItsLine(t *testing.T) {
	home(t, "")
	Logf("hook", Fields{Repo: "/r", Agent: "a", Event: "hook Stop"}, "claude Stop: %s", "two\nlines")
	b, err := os.ReadFile(state.LogPath())
	require.NoError(t, err)
	want := regexp.MustCompile(fmt.Sprintf(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(Z|[+-]\d\d:\d\d) \[%d\] hook: claude Stop: two lines\n$`, os.Getpid()))
	require.Regexp(t, want, string(b))
	require.Equal(t, Text, Format())
}

// [log] format = "json" in the user's config: every line is a JSON object
// with time, level, repo, agent and event.
func TestJSONLinesCarryTheirFields(t *testing.T) {
	home(t, "[log]\nformat = \"json\"\n")
	Errorf("hook", Fields{Repo: "/r", Agent: "a", Event: "hook Stop"}, "bad \x1b]0;x\x07 event\nnext")
	var buf bytes.Buffer
	New(&buf, "monitor").Infof(Fields{Event: "monitor"}, "started")
	file, err := os.ReadFile(state.LogPath())
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(file)+buf.String(), "\n"), "\n")
	require.Len(t, lines, 2)
	for _, l := range lines {
		require.NotContains(t, l, "\x1b", "JSON escapes controls")
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		for _, k := range []string{"time", "level", "repo", "agent", "event", "msg", "who", "pid"} {
			require.Contains(t, m, k, l)
		}
	}
	var first map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	require.Equal(t, "ERROR", first["level"])
	require.Equal(t, "/r", first["repo"])
	require.Equal(t, "a", first["agent"])
	require.Equal(t, "hook Stop", first["event"])
	require.Equal(t, "bad \x1b]0;x\x07 event\nnext", first["msg"])
}

// --log-format wins over the config, and takes only text or json.
func TestTheFlagWins(t *testing.T) {
	home(t, "[log]\nformat = \"json\"\n")
	require.Error(t, SetFormat("yaml"))
	require.NoError(t, SetFormat(Text))
	require.Equal(t, Text, Format())
	require.Equal(t, Text, Override())
}

// state.Logf, kept for callers that name no agent, writes through this
// logger: a JSON line when JSON is chosen.
func TestStateLogfGoesThroughTheLogger(t *testing.T) {
	home(t, "[log]\nformat = \"json\"\n")
	state.Logf("list", "skip %s", "x")
	b, err := os.ReadFile(state.LogPath())
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m), string(b))
	require.Equal(t, "list", m["event"])
	require.Equal(t, "skip x", m["msg"])
}

// A text entry quoting someone's words (an event name from argv) draws
// their control characters as \xNN: tail owt.log shows no escape.
func TestTextLineDrawsControlCharactersInert(t *testing.T) {
	line := TextLine(time.Unix(0, 0).UTC(), 7, "hook", "claude Sto\x1b[31mp\x07 event")
	require.NotContains(t, line, "\x1b")
	require.NotContains(t, line, "\x07")
	require.Contains(t, line, `claude Sto\x1b[31mp\x07 event`)
}
