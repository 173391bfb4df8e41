package lifecycle

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
)

// A tracked settings file holding owt's hooks (hidden with skip-worktree,
// as hook.Files.Install does) is work exactly when, without owt's hooks, it
// differs from HEAD: for a record that notes it, and for an older record
// that does not.
func TestWorkFilesSeesEditsOfTrackedHookFiles(t *testing.T) {
	for k, v := range map[string]string{
		"HOME": t.TempDir(), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid",
		"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid",
	} {
		t.Setenv(k, v)
	}
	xdg.Reload() // the XDG directories are read once, at start
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	const rel = ".gemini/settings.json"
	path := filepath.Join(dir, rel)
	head := "{\n    \"general\": {\"vimMode\": true}\n}\n"
	git("init", "-q", "-b", "main")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(head), 0o644))
	git("add", ".")
	git("commit", "-q", "-m", "settings")

	installed, err := agent.MergeHookSettings([]byte(head), "gemini", "/usr/bin/owt")
	require.NoError(t, err)
	write := func(data string) {
		t.Helper()
		require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	}
	write(string(installed))
	git("update-index", "--skip-worktree", "--", rel)

	noted := &state.Record{Name: "g", Path: dir, Repo: dir, HookFiles: []state.HookFile{{Path: rel, Tracked: true}}}
	legacy := &state.Record{Name: "g", Path: dir, Repo: dir, Tool: "gemini"}
	recovered := &state.Record{Name: "g", Path: dir, Repo: dir, Recovered: true}
	untracked := &state.Record{Name: "g", Path: dir, Repo: dir, Tool: "gemini", HookFiles: []state.HookFile{{Path: ".claude/settings.local.json"}}}
	check := func(want []string, what string) {
		t.Helper()
		for _, r := range []*state.Record{noted, legacy, recovered} {
			got, err := WorkFiles(r)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s (hook files noted: %v, tool %q)", what, r.HookFiles != nil, r.Tool)
		}
	}

	check(nil, "owt's hooks alone")
	got, err := WorkFiles(untracked)
	require.NoError(t, err)
	require.Empty(t, got, "not noted as tracked: git status decides")

	edited := strings.Replace(string(installed), `"general": {`, `"mcpServers": {"db": {"command": "x"}}, "general": {`, 1)
	write(edited)
	require.Empty(t, git("status", "--porcelain"), "git does not see it")
	check([]string{rel}, "the agent's edit")
	got, err = WorkFiles(untracked)
	require.NoError(t, err)
	require.Empty(t, got, "a record noting the file untracked trusts git status")

	write("{not json")
	check([]string{rel}, "a broken file")

	require.NoError(t, os.Remove(path))
	check([]string{rel}, "a deleted file")

	// Unhidden by the user: git shows owt's lines as a change, which is
	// not work; the agent's edit still is.
	write(string(installed))
	git("update-index", "--no-skip-worktree", "--", rel)
	require.Equal(t, "M "+rel, git("status", "--porcelain"))
	got, err = WorkFiles(noted)
	require.NoError(t, err)
	require.Empty(t, got, "owt's hooks alone")
	write(edited)
	got, err = WorkFiles(noted)
	require.NoError(t, err)
	require.Equal(t, []string{rel}, got)
}
