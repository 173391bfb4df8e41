package agent

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Claude's settings.local.json gets owt's statusLine (Claude's usage
// windows reach only a statusLine command), unless the user set one in
// that file; taking owt's lines out takes it out too.
func TestClaudeSettingsGetOwtsStatusLineUnlessTheUsersOwn(t *testing.T) {
	owt := "/opt/my owt/owt"
	data, err := MergeHookSettings(nil, "claude", owt)
	require.NoError(t, err)
	var f struct {
		StatusLine statusLine `json:"statusLine"`
	}
	require.NoError(t, json.Unmarshal(data, &f))
	require.Equal(t, "command", f.StatusLine.Type)
	require.Equal(t, `'/opt/my owt/owt' hook claude statusline`, f.StatusLine.Command)
	require.False(t, StaleOwtHooks(data, "claude", owt))
	require.True(t, StaleOwtHooks(data, "claude", "/elsewhere/owt"), "owt at another path")
	require.Equal(t, "", UserStatusLine(data), "owt's is not the user's")

	again, err := MergeHookSettings(data, "claude", owt)
	require.NoError(t, err)
	require.Equal(t, string(data), string(again))

	stripped, err := StripHookSettings(data)
	require.NoError(t, err)
	require.NotContains(t, string(stripped), "statusLine")
	removed, err := RemoveHooks(data)
	require.NoError(t, err)
	require.NotContains(t, string(removed), "statusLine")

	// An owt from before statusLines: its file is stale, so Renew adds it.
	require.True(t, StaleOwtHooks(removed, "claude", owt))

	users := []byte(`{"statusLine":{"type":"command","command":"~/bin/my-line"},"model":"opus"}`)
	merged, err := MergeHookSettings(users, "claude", owt)
	require.NoError(t, err)
	require.Contains(t, string(merged), `"command": "~/bin/my-line"`)
	require.NotContains(t, string(merged), "statusline")
	require.False(t, StaleOwtHooks(merged, "claude", owt), "the user's statusLine is not owt's to renew")
	require.Equal(t, "~/bin/my-line", UserStatusLine(merged))

	gemini, err := MergeHookSettings(nil, "gemini", owt)
	require.NoError(t, err)
	require.NotContains(t, string(gemini), "statusLine", "only Claude has one")
}
