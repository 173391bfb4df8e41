package send

// A copy of workspace's test world (create_test.go), for the tests that
// moved here with their code.

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

// world is a private tmux server, temp XDG dirs and a real git repo.
type world struct {
	t    *testing.T
	repo string
	tm   *tmux.Client
}

func newWorld(t *testing.T) *world {
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
	t.Setenv("TMUX", "")
	os.Unsetenv("TMUX")
	require.NoError(t, os.MkdirAll(os.Getenv("TMUX_TMPDIR"), 0o700))
	xdg.Reload()
	t.Cleanup(xdg.Reload)

	w := &world{t: t, repo: filepath.Join(root, "app"), tm: tmux.New()}
	w.run("tmux", "-f", "/dev/null", "new-session", "-d", "-s", "harness")
	t.Cleanup(func() { _ = exec.Command("tmux", "kill-server").Run() })
	require.NoError(t, os.MkdirAll(w.repo, 0o755))
	w.run("git", "-C", w.repo, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(w.repo, ".env"), []byte("X=1\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(w.repo, ".gitignore"), []byte(".env\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(w.repo, "cache"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(w.repo, ".owt.toml"), []byte("[worktree]\nlink = [\"cache\"]\n"), 0o644))
	w.run("git", "-C", w.repo, "add", ".gitignore")
	w.run("git", "-C", w.repo, "commit", "-q", "-m", "init")
	return w
}

func (w *world) run(name string, args ...string) string {
	w.t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	require.NoError(w.t, err, "%s %v: %s", name, args, out)
	return strings.TrimSpace(string(out))
}

func (w *world) workspace() *workspace.Workspace {
	ws, err := workspace.Open(w.repo, w.tm)
	require.NoError(w.t, err)
	// The session runs a stand-in for "owt _run" that just stays alive:
	// this test is about the steps around it.
	script := filepath.Join(w.t.TempDir(), "owt") // named like owt: hook files point at it
	// Create also starts "owt monitor" through Self: the stand-in declines.
	require.NoError(w.t, os.WriteFile(script, []byte("#!/bin/sh\n[ \"$1\" = monitor ] && exit 0\nexec sleep 600\n"), 0o755))
	ws.Self = script
	return ws
}
