package lifecycle

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
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

func (w *world) workspace() *Worktrees {
	ws, err := workspace.Open(w.repo, w.tm)
	require.NoError(w.t, err)
	// The session runs a stand-in for "owt _run" that just stays alive:
	// this test is about the steps around it.
	script := filepath.Join(w.t.TempDir(), "owt") // named like owt: hook files point at it
	// Create also starts "owt monitor" through Self: the stand-in declines.
	require.NoError(w.t, os.WriteFile(script, []byte("#!/bin/sh\n[ \"$1\" = monitor ] && exit 0\nexec sleep 600\n"), 0o755))
	ws.Self = script
	return Of(ws)
}

func TestCreateRollsBackAtEveryStep(t *testing.T) {
	w := newWorld(t)
	exclude := filepath.Join(w.repo, ".git", "info", "exclude")
	before, _ := os.ReadFile(exclude)

	for _, step := range []string{"reserve", "worktree", "files", "session", "record"} {
		t.Run(step, func(t *testing.T) {
			ws := w.workspace()
			boom := errors.New("injected failure after " + step)
			testHookAfterStep = func(s string) error {
				if s == step {
					return boom
				}
				return nil
			}
			defer func() { testHookAfterStep = nil }()

			_, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
			require.ErrorIs(t, err, boom)

			require.Empty(t, w.run("git", "-C", w.repo, "branch", "--list", "feat/*"), "no orphan branch")
			require.NotContains(t, w.run("git", "-C", w.repo, "worktree", "list"), "app.worktrees")
			require.NoDirExists(t, filepath.Join(filepath.Dir(w.repo), "app.worktrees", "add-feature"))
			sessions := w.run("tmux", "list-sessions", "-F", "#{session_name}")
			require.Equal(t, "harness", sessions, "no orphan session")
			recs, err := ws.Records()
			require.NoError(t, err)
			require.Empty(t, recs, "no orphan record")
			after, _ := os.ReadFile(exclude)
			require.Equal(t, string(before), string(after), "info/exclude restored")
		})
	}

	// Without a failure the same call succeeds, so the steps above did run.
	ws := w.workspace()
	rec, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
	require.NoError(t, err)
	require.Equal(t, "add-feature", rec.Name)
	require.DirExists(t, rec.Path)
}

// A failed create lets its name's create lock go only after its rollback
// ran: until then 'owt doctor --fix' must not take the half-made
// worktree for an interrupted one and repair it under the rollback.
func TestCreateHoldsItsLockUntilTheRollbackEnds(t *testing.T) {
	w := newWorld(t)
	ws := w.workspace()
	boom := errors.New("injected failure after the session")
	heldDuringRollback := false
	testHookAfterStep = func(s string) error {
		switch s {
		case "session":
			return boom
		case "rolled back":
			heldDuringRollback = state.IsHeld(state.CreateLock(ws.Repo.Root, "add-feature"))
		}
		return nil
	}
	defer func() { testHookAfterStep = nil }()

	_, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
	require.ErrorIs(t, err, boom)
	require.True(t, heldDuringRollback, "the create lock was let go before the rollback ended")
	require.False(t, state.IsHeld(state.CreateLock(ws.Repo.Root, "add-feature")), "the create lock is let go at the end")
}
