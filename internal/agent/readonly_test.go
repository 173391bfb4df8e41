package agent

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

func TestReadOnlyArgv(t *testing.T) {
	ps, err := Profiles(config.Config{Tools: map[string]config.Tool{"claude": {Command: []string{"claude", "--verbose"}}}})
	require.NoError(t, err)
	got, err := ps["claude"].ReadOnlyArgv("review")
	require.NoError(t, err)
	require.Equal(t, []string{"claude", "--verbose", "--permission-mode", "plan", "review"}, got, "kept over a [tools.claude] table")
	got, err = ps["codex"].ReadOnlyArgv("")
	require.NoError(t, err)
	require.Equal(t, []string{"codex", "--sandbox", "read-only"}, got, "never the bypass flag")
	got, err = ps["gemini"].ReadOnlyArgv("x")
	require.NoError(t, err)
	require.Equal(t, []string{"gemini", "--approval-mode", "plan", "-i", "x"}, got)
	_, err = ps["opencode"].ReadOnlyArgv("")
	require.True(t, errors.Is(err, ErrNoReadOnly), "its plan agent still runs bash: refused, not pretended")
	_, err = ps["pi"].ReadOnlyArgv("x")
	require.True(t, errors.Is(err, ErrNoReadOnly))
}

func TestEditedFile(t *testing.T) {
	ev := func(s string) HookEvent {
		var e HookEvent
		require.NoError(t, json.Unmarshal([]byte(s), &e))
		return e
	}
	require.Equal(t, "/w/a.go", EditedFile(ev(`{"cwd":"/w","tool_name":"Write","tool_input":{"file_path":"/w/a.go","content":"x"}}`)))
	require.Equal(t, "/w/b/c.go", EditedFile(ev(`{"cwd":"/w","tool_name":"replace","tool_input":{"file_path":"b/c.go"}}`)))
	require.Equal(t, "", EditedFile(ev(`{"cwd":"/w","tool_name":"Read","tool_input":{"file_path":"/w/a.go"}}`)), "a read is no edit")
	require.Equal(t, "", EditedFile(ev(`{"cwd":"/w","tool_name":"Bash","tool_input":{"command":"ls"}}`)))
	require.Equal(t, "", EditedFile(ev(`{"cwd":"/w","tool_name":"Write","tool_input":"odd"}`)))
}
