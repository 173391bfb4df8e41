package run

// The git repos the model's and the work readings' tests read.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/stretchr/testify/require"
)

// gitIn runs git in dir for a test, failing it on error.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// taskRepo is a repo whose checkout is a task's worktree on branch task,
// started at the first commit.
func taskRepo(t *testing.T) (*state.Record, string) {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README"), []byte("x\n"), 0o644))
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "init")
	start := gitIn(t, dir, "rev-parse", "HEAD")
	gitIn(t, dir, "switch", "-q", "-c", "task")
	return &state.Record{Name: "r-a", Path: dir, Branch: "task", Base: "main", BaseCommit: start}, dir
}

// commitFile commits file on the branch checked out in dir.
func commitFile(t *testing.T, dir, file string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(file+"\n"), 0o644))
	gitIn(t, dir, "add", file)
	gitIn(t, dir, "commit", "-q", "-m", "add "+file)
}

// moveMain commits file on main, leaving the task's branch checked out.
func moveMain(t *testing.T, dir, file string) {
	t.Helper()
	gitIn(t, dir, "switch", "-q", "main")
	commitFile(t, dir, file)
	gitIn(t, dir, "switch", "-q", "task")
}
