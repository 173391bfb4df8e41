package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// owt config show --origin names the file behind every value, or
// "default" (issue 34, problem 5).
func TestEncodeWithOriginsNamesTheFileBehindEachValue(t *testing.T) {
	root := setup(t,
		"[agent]\ntool = \"codex\"\nauto_approve = true\n[worktree]\ncopy = [\".env\"]\n[tools.claude]\nplan = [\"--plan\"]\n[prices.\"m.1\"]\ninput = 1.5\n",
		"[agent]\ntool = \"gemini\"\n[tools.claude]\nready = \"^x\"\n")
	user, repo := UserFile(), filepath.Join(root, RepoFile)
	cfg, err := Load(root)
	require.NoError(t, err)
	out, err := EncodeWithOrigins(cfg, root)
	require.NoError(t, err)
	want := map[string]string{ // "[table] key = " → origin
		"[agent] tool = ":            repo,
		"[agent] auto_approve = ":    user,
		"[agent] ready_timeout = ":   DefaultOrigin,
		"[worktree] copy = ":         user,
		"[worktree] dir = ":          DefaultOrigin,
		"[tools.claude] plan = ":     user,
		"[tools.claude] ready = ":    repo,
		"[prices.\"m.1\"] input = ":  user,
		"[prices.\"m.1\"] output = ": DefaultOrigin,
		"[status] still_after = ":    DefaultOrigin,
	}
	var table string
	got := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		tl := strings.TrimSpace(l)
		if strings.HasPrefix(tl, "[") {
			table = tl
			require.NotContains(t, tl, "#", "a table has no origin of its own")
			continue
		}
		if tl == "" {
			continue
		}
		val, from, ok := strings.Cut(tl, "  # ")
		require.True(t, ok, "every value says where it came from: %q", l)
		got[table+" "+val] = from
	}
	for k, v := range want {
		found := false
		for g, from := range got {
			if strings.HasPrefix(g, k) {
				require.Equal(t, v, from, "%s", g)
				found = true
			}
		}
		require.True(t, found, "no value %q in:\n%s", k, out)
	}
	require.Contains(t, out, "tool = \"gemini\"  # "+repo)
	require.Contains(t, out, "copy = [\".env\"]  # "+user)
}
