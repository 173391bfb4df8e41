package hookevent

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHookStatus(t *testing.T) {
	cases := []struct {
		kind, event string
		ev          Event
		want        string
	}{
		{"claude", "UserPromptSubmit", Event{}, Working},
		{"claude", "PreToolUse", Event{}, Working},
		{"claude", "PostToolUse", Event{}, Working},
		{"claude", "PermissionRequest", Event{}, Waiting},
		{"claude", "Notification", Event{NotificationType: "permission_prompt"}, Waiting},
		{"claude", "Notification", Event{NotificationType: "elicitation_dialog"}, Waiting},
		{"claude", "Notification", Event{NotificationType: "idle_prompt"}, Idle},
		{"claude", "Notification", Event{NotificationType: "auth_success"}, ""},
		{"claude", "Stop", Event{}, Idle},
		{"claude", "SessionEnd", Event{Reason: "prompt_input_exit"}, Exited},
		{"claude", "SessionEnd", Event{Reason: "clear"}, ""},
		{"claude", "SessionStart", Event{}, ""},
		{"droid", "Notification", Event{Message: "Droid needs your permission to use Execute"}, Waiting},
		{"droid", "Stop", Event{}, Idle},
		{"gemini", "BeforeAgent", Event{}, Working},
		{"gemini", "AfterTool", Event{}, Working},
		{"gemini", "AfterAgent", Event{}, Idle},
		{"gemini", "Notification", Event{NotificationType: "ToolPermission"}, Waiting},
		{"gemini", "Stop", Event{}, ""},
		{"codex", "notify", Event{Type: "agent-turn-complete"}, Idle},
		{"codex", "notify", Event{Type: "something-else"}, ""},
		{"codex", "Stop", Event{}, Idle},
		{"nosuch", "Stop", Event{}, ""},
	}
	for _, c := range cases {
		got, ok := Status(c.kind, c.event, c.ev)
		require.Equal(t, c.want, got, "%s %s %+v", c.kind, c.event, c.ev)
		require.Equal(t, c.want != "", ok)
	}
}

// Each tool's hooks name its session: session_id (Claude, Droid, Gemini,
// Codex's lifecycle hooks), thread-id (Codex's notify).
func TestHookSession(t *testing.T) {
	ev := Event{SessionID: "s", ThreadID: "t"}
	require.Equal(t, "s", Session("claude", "Stop", ev))
	require.Equal(t, "s", Session("gemini", "AfterAgent", ev))
	require.Equal(t, "s", Session("codex", "Stop", ev))
	require.Equal(t, "t", Session("codex", "notify", ev))
	require.Equal(t, "", Session("opencode", "x", ev))
}

func TestEditedFile(t *testing.T) {
	ev := func(s string) Event {
		var e Event
		require.NoError(t, json.Unmarshal([]byte(s), &e))
		return e
	}
	require.Equal(t, "/w/a.go", EditedFile(ev(`{"cwd":"/w","tool_name":"Write","tool_input":{"file_path":"/w/a.go","content":"x"}}`)))
	require.Equal(t, "/w/b/c.go", EditedFile(ev(`{"cwd":"/w","tool_name":"replace","tool_input":{"file_path":"b/c.go"}}`)))
	require.Equal(t, "", EditedFile(ev(`{"cwd":"/w","tool_name":"Read","tool_input":{"file_path":"/w/a.go"}}`)), "a read is no edit")
	require.Equal(t, "", EditedFile(ev(`{"cwd":"/w","tool_name":"Bash","tool_input":{"command":"ls"}}`)))
	require.Equal(t, "", EditedFile(ev(`{"cwd":"/w","tool_name":"Write","tool_input":"odd"}`)))
}
