package hook

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
)

func TestRestoreHookFilePutsTheUsersSettingsBack(t *testing.T) {
	const rel = ".claude/settings.local.json"
	user := []byte("{\n    \"permissions\": {\"allow\": [\"Bash(make:*)\"]}\n}\n")
	merged := func(t *testing.T, data []byte) []byte {
		out, err := agent.MergeHookSettings(data, "claude", "/bin/owt")
		require.NoError(t, err)
		return out
	}
	setup := func(t *testing.T, content []byte) (string, string) {
		dir := t.TempDir()
		path := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, content, 0o600))
		return dir, path
	}

	t.Run("unchanged: the very bytes", func(t *testing.T) {
		dir, path := setup(t, merged(t, user))
		require.NoError(t, restoreHookFile(dir, state.HookFile{Path: rel, Existed: true, Prior: user}))
		got, _ := os.ReadFile(path)
		require.Equal(t, string(user), string(got))
		fi, _ := os.Stat(path)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "its mode kept")
	})
	t.Run("edited since: the edits stay, owt's hooks go", func(t *testing.T) {
		edited := []byte(`{"permissions": {"allow": ["Bash(make:*)", "Bash(go:*)"]}}`)
		dir, path := setup(t, merged(t, edited))
		require.NoError(t, restoreHookFile(dir, state.HookFile{Path: rel, Existed: true, Prior: user}))
		got, _ := os.ReadFile(path)
		require.Contains(t, string(got), "Bash(go:*)")
		require.False(t, agent.HasOwtHooks(got))
	})
	t.Run("made by owt: removed with its folder", func(t *testing.T) {
		dir, path := setup(t, merged(t, nil))
		require.NoError(t, restoreHookFile(dir, state.HookFile{Path: rel, MadeDir: true}))
		require.NoFileExists(t, path)
		require.NoDirExists(t, filepath.Dir(path))
		require.DirExists(t, dir, "never more than its own folder")
	})
	t.Run("made by owt, then the user's settings added: kept without owt's hooks", func(t *testing.T) {
		dir, path := setup(t, merged(t, user))
		require.NoError(t, restoreHookFile(dir, state.HookFile{Path: rel, MadeDir: true}))
		got, _ := os.ReadFile(path)
		require.Contains(t, string(got), "Bash(make:*)")
		require.False(t, agent.HasOwtHooks(got))
	})
}
