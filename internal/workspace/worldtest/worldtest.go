// Package worldtest is test support for the packages above workspace: a
// private tmux server, temp HOME and XDG dirs and a real git repo, for
// unit tests that need real tmux and git but not the built owt. Only
// tests import it.
package worldtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// World is a private tmux server, temp XDG dirs and a real git repo (on
// main, with an ignored .env, a linked cache folder and one commit).
type World struct {
	T    *testing.T
	Repo string
	Tmux *tmux.Client
}

// New makes a world for t; t's cleanup ends it. It sets the process's
// environment (t.Setenv), so its tests do not run in parallel.
func New(t *testing.T) *World {
	t.Helper()
	root := t.TempDir()
	for k, v := range map[string]string{
		"HOME": filepath.Join(root, "home"), "XDG_STATE_HOME": filepath.Join(root, "state"),
		"XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_CACHE_HOME": filepath.Join(root, "cache"),
		"TMUX_TMPDIR": filepath.Join(root, "tmux"), "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.invalid",
		"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.invalid",
	} {
		t.Setenv(k, v)
	}
	xdg.Reload() // the XDG directories are read once, at start
	t.Setenv("TMUX", "")
	os.Unsetenv("TMUX")
	require.NoError(t, os.MkdirAll(os.Getenv("TMUX_TMPDIR"), 0o700))

	w := &World{T: t, Repo: filepath.Join(root, "app"), Tmux: tmux.New()}
	w.Run("tmux", "-f", "/dev/null", "new-session", "-d", "-s", "harness")
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-server").Run() })
	require.NoError(t, os.MkdirAll(w.Repo, 0o755))
	w.Run("git", "-C", w.Repo, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(w.Repo, ".env"), []byte("X=1\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(w.Repo, ".gitignore"), []byte(".env\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(w.Repo, "cache"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(w.Repo, ".owt.toml"), []byte("[worktree]\nlink = [\"cache\"]\n"), 0o644))
	w.Run("git", "-C", w.Repo, "add", ".gitignore")
	w.Run("git", "-C", w.Repo, "commit", "-q", "-m", "init")
	return w
}

// Run runs a program and fails the test if it fails; its trimmed output.
func (w *World) Run(name string, args ...string) string {
	w.T.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	require.NoError(w.T, err, "%s %v: %s", name, args, out)
	return strings.TrimSpace(string(out))
}

// Workspace opens the repo. Its sessions run a stand-in for "owt _run"
// that just stays alive (named owt: hook files point at it), and that
// declines to be "owt monitor".
func (w *World) Workspace() *workspace.Workspace {
	ws, err := workspace.Open(w.Repo, w.Tmux)
	require.NoError(w.T, err)
	script := filepath.Join(w.T.TempDir(), "owt")
	require.NoError(w.T, os.WriteFile(script, []byte("#!/bin/sh\n[ \"$1\" = monitor ] && exit 0\nexec sleep 600\n"), 0o755))
	ws.Self = script
	return ws
}
