package agent

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHookStatus(t *testing.T) {
	cases := []struct {
		kind, event string
		ev          HookEvent
		want        string
	}{
		{"claude", "UserPromptSubmit", HookEvent{}, hookWorking},
		{"claude", "PreToolUse", HookEvent{}, hookWorking},
		{"claude", "PostToolUse", HookEvent{}, hookWorking},
		{"claude", "PermissionRequest", HookEvent{}, hookWaiting},
		{"claude", "Notification", HookEvent{NotificationType: "permission_prompt"}, hookWaiting},
		{"claude", "Notification", HookEvent{NotificationType: "elicitation_dialog"}, hookWaiting},
		{"claude", "Notification", HookEvent{NotificationType: "idle_prompt"}, hookIdle},
		{"claude", "Notification", HookEvent{NotificationType: "auth_success"}, ""},
		{"claude", "Stop", HookEvent{}, hookIdle},
		{"claude", "SessionEnd", HookEvent{Reason: "prompt_input_exit"}, hookExited},
		{"claude", "SessionEnd", HookEvent{Reason: "clear"}, ""},
		{"claude", "SessionStart", HookEvent{}, ""},
		{"droid", "Notification", HookEvent{Message: "Droid needs your permission to use Execute"}, hookWaiting},
		{"droid", "Stop", HookEvent{}, hookIdle},
		{"gemini", "BeforeAgent", HookEvent{}, hookWorking},
		{"gemini", "AfterTool", HookEvent{}, hookWorking},
		{"gemini", "AfterAgent", HookEvent{}, hookIdle},
		{"gemini", "Notification", HookEvent{NotificationType: "ToolPermission"}, hookWaiting},
		{"gemini", "Stop", HookEvent{}, ""},
		{"codex", "notify", HookEvent{Type: "agent-turn-complete"}, hookIdle},
		{"codex", "notify", HookEvent{Type: "something-else"}, ""},
		{"codex", "Stop", HookEvent{}, hookIdle},
		{"nosuch", "Stop", HookEvent{}, ""},
	}
	for _, c := range cases {
		got, ok := HookStatus(c.kind, c.event, c.ev)
		require.Equal(t, c.want, got, "%s %s %+v", c.kind, c.event, c.ev)
		require.Equal(t, c.want != "", ok)
	}
}

// Each tool's hooks name its session: session_id (Claude, Droid, Gemini,
// Codex's lifecycle hooks), thread-id (Codex's notify).
func TestHookSession(t *testing.T) {
	ev := HookEvent{SessionID: "s", ThreadID: "t"}
	require.Equal(t, "s", HookSession("claude", "Stop", ev))
	require.Equal(t, "s", HookSession("gemini", "AfterAgent", ev))
	require.Equal(t, "s", HookSession("codex", "Stop", ev))
	require.Equal(t, "t", HookSession("codex", "notify", ev))
	require.Equal(t, "", HookSession("opencode", "x", ev))
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
