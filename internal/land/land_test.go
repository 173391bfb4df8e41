package land

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/git"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@example.invalid"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func commitIn(t *testing.T, dir, name, content string) string {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	gitIn(t, dir, "add", "--", name)
	gitIn(t, dir, "commit", "-q", "-m", name)
	return gitIn(t, dir, "rev-parse", "HEAD")
}

// raceRepo is a repo whose main moved (another merge landed) after a
// merge read it at old; commit is that merge's result, on top of old.
func raceRepo(t *testing.T) (c *Context, dir, old, commit string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "proj")
	require.NoError(t, os.Mkdir(dir, 0o755))
	gitIn(t, dir, "init", "-q", "-b", "main")
	old = commitIn(t, dir, "a.txt", "a\n")
	gitIn(t, dir, "checkout", "-q", "-b", "feat")
	commit = commitIn(t, dir, "b.txt", "b\n")
	gitIn(t, dir, "checkout", "-q", "main")
	commitIn(t, dir, "c.txt", "c\n") // the merge that won the race
	repo, err := git.FindRepo(dir)
	require.NoError(t, err)
	return &Context{Git: repo}, dir, old, commit
}

// A merge that lost the race to another one says the target moved and
// to merge again, whether the target is checked out (clean) or nowhere;
// the target keeps the winner's commit.
func TestMoveTargetThatMovedMeanwhileSaysMergeAgain(t *testing.T) {
	c, dir, old, commit := raceRepo(t)
	won := gitIn(t, dir, "rev-parse", "main")
	err := c.moveTarget("main", dir, old, commit, "test")
	require.ErrorIs(t, err, ErrTargetMoved)
	require.Equal(t, "main moved meanwhile (another merge landed first); main was not changed: merge again", err.Error())
	require.Equal(t, won, gitIn(t, dir, "rev-parse", "main"))

	c, dir, old, commit = raceRepo(t)
	gitIn(t, dir, "checkout", "-q", "--detach")
	won = gitIn(t, dir, "rev-parse", "main")
	err = c.moveTarget("main", "", old, commit, "test")
	require.True(t, errors.Is(err, ErrTargetMoved), "%v", err)
	require.Equal(t, won, gitIn(t, dir, "rev-parse", "main"))
}
