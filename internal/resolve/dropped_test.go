package resolve

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/git"
)

// gitIn runs git in dir, as an identity of its own and none of the
// user's configuration, and returns its output, trimmed.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitCmd(dir, args...).CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// gitCmd is git in dir with gitIn's identity and environment.
func gitCmd(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "HOME="+dir)
	return cmd
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
}

// A merge that keeps the branch's version of a file main changed drops
// main's change; one that carried main's edit into a file the branch had
// renamed drops nothing.
func TestDroppedSide(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	write(t, dir, "lib.txt", "a\nb\nc\nd\ne\nf\n")
	write(t, dir, "shared.txt", "one\ntwo\nthree\n")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "base")
	gitIn(t, dir, "checkout", "-q", "-b", "feat")
	gitIn(t, dir, "mv", "lib.txt", "util.txt")
	write(t, dir, "shared.txt", "one\nagent two\nthree\n")
	gitIn(t, dir, "commit", "-q", "-am", "branch: rename lib, edit shared")
	head := gitIn(t, dir, "rev-parse", "HEAD")
	gitIn(t, dir, "checkout", "-q", "main")
	write(t, dir, "lib.txt", "a\nb\nc\nd\ne\nmain f\n")
	write(t, dir, "shared.txt", "one\nmain two\nthree\n")
	gitIn(t, dir, "commit", "-q", "-am", "main: edit lib and shared")
	onto := gitIn(t, dir, "rev-parse", "HEAD")
	gitIn(t, dir, "checkout", "-q", "feat")
	out, err := gitCmd(dir, "merge", "-q", "main").CombinedOutput()
	require.Error(t, err, "shared.txt conflicts: %s", out)
	require.Contains(t, gitIn(t, dir, "diff", "--name-only", "--diff-filter=U"), "shared.txt", "the merge stopped on shared.txt's conflict: %s", out)
	repo := git.Repo{Root: dir}

	// Kept whole: shared.txt as the branch had it.
	write(t, dir, "shared.txt", "one\nagent two\nthree\n")
	gitIn(t, dir, "commit", "-q", "-am", "merge main, keeping mine")
	mine := gitIn(t, dir, "rev-parse", "HEAD")
	require.Contains(t, gitIn(t, dir, "show", "HEAD:util.txt"), "main f", "git carried main's edit into the renamed file")
	dropped, err := droppedSide(repo, head, onto, mine)
	require.NoError(t, err)
	require.Equal(t, []string{"shared.txt"}, dropped)

	// Both sides combined: nothing dropped, the renamed file included.
	write(t, dir, "shared.txt", "one\nagent two, main two\nthree\n")
	gitIn(t, dir, "commit", "-q", "-am", "combine")
	dropped, err = droppedSide(repo, head, onto, gitIn(t, dir, "rev-parse", "HEAD"))
	require.NoError(t, err)
	require.Empty(t, dropped)
}
