package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/usage"
)

// owt's statusLine keeps Claude's usage windows for the agent of its
// environment, and runs the statusLine the user set in their own Claude
// settings (which owt's hides) with the same JSON, printing its output.
func TestStatusLineKeepsTheWindowsAndRunsTheUsersOwn(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload()
	t.Cleanup(xdg.Reload)
	claudeDir := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", claudeDir)
	t.Setenv("OWT_REPO", "/src/app")
	t.Setenv("OWT_NAME", "login")
	t.Setenv(chainedEnv, "")
	in, err := os.ReadFile(filepath.Join("..", "..", "testdata", "usage", "claude-statusline.json"))
	require.NoError(t, err)
	wt := t.TempDir()
	t.Chdir(wt)

	// No statusLine of the user's: nothing printed, the windows kept.
	var out bytes.Buffer
	StatusLine(bytes.NewReader(in), &out, false)
	require.Empty(t, out.String())
	f, err := usage.ReadLimits(usage.LimitsPath("/src/app", "login"))
	require.NoError(t, err)
	require.Len(t, f.Limits, 2)
	require.Equal(t, 82.5, f.Limits[0].UsedPercent)

	// The user's own, in their Claude settings: run with the JSON.
	got := filepath.Join(t.TempDir(), "stdin")
	settings := `{"statusLine":{"type":"command","command":"cat > '` + got + `'; echo \"my line\""}}`
	require.NoError(t, os.WriteFile(filepath.Join(claudeDir, "settings.json"), []byte(settings), 0o600))
	out.Reset()
	StatusLine(bytes.NewReader(in), &out, false)
	require.Equal(t, "my line\n", out.String())
	seen, err := os.ReadFile(got)
	require.NoError(t, err)
	require.Equal(t, string(in), string(seen))

	// The project's wins over the user's, as in Claude.
	require.NoError(t, os.MkdirAll(filepath.Join(wt, ".claude"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(wt, ".claude", "settings.json"),
		[]byte(`{"statusLine":{"type":"command","command":"echo project"}}`), 0o600))
	out.Reset()
	StatusLine(bytes.NewReader([]byte(`{"workspace":{"project_dir":"`+wt+`"}}`)), &out, false)
	require.Equal(t, "project\n", out.String())

	// Run by owt's own statusLine: not again.
	t.Setenv(chainedEnv, "1")
	out.Reset()
	StatusLine(bytes.NewReader(in), &out, false)
	require.Empty(t, out.String())
}
