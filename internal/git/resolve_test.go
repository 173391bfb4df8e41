package git

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestConflictMarkers(t *testing.T) {
	for line, want := range map[string]bool{
		"<<<<<<< HEAD": true, "=======": true, ">>>>>>> main": true, "||||||| base": true, "<<<<<<<": true,
		"======== heading": false, "<<<<<<<< eight": false, " =======": false, "a <<<<<<< b": false, "": false,
	} {
		require.Equal(t, want, ConflictMarker(line), "%q", line)
	}
	require.True(t, HasConflictMarkers([]byte("a\r\n<<<<<<< HEAD\r\nb\r\n")))
	require.False(t, HasConflictMarkers([]byte("a\n=== not one\n")))
}

// StartMerge leaves the conflicts and the merge in progress, commits
// nothing; AbortMerge puts the worktree back.
func TestStartMergeLeavesConflictsUncommitted(t *testing.T) {
	dir := t.TempDir()
	g := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%v: %s", args, out)
		return string(out)
	}
	write := func(s string) { require.NoError(t, os.WriteFile(filepath.Join(dir, "f.txt"), []byte(s), 0o644)) }
	g("init", "-q", "-b", "main")
	write("one\n")
	g("add", ".")
	g("commit", "-q", "-m", "one")
	g("switch", "-q", "-c", "feat")
	write("feat\n")
	g("commit", "-q", "-am", "feat")
	g("switch", "-q", "main")
	write("main\n")
	g("commit", "-q", "-am", "main")
	g("switch", "-q", "feat")
	head := g("rev-parse", "HEAD")

	files, err := StartMerge(dir, "main", "Merge main into feat\n")
	require.NoError(t, err)
	require.Equal(t, []string{"f.txt"}, files)
	op, err := OperationInProgress(dir)
	require.NoError(t, err)
	require.Equal(t, "merge", op)
	require.Equal(t, head, g("rev-parse", "HEAD"), "nothing committed")
	data, err := os.ReadFile(filepath.Join(dir, "f.txt"))
	require.NoError(t, err)
	require.True(t, HasConflictMarkers(data))

	require.NoError(t, AbortMerge(dir))
	op, _ = OperationInProgress(dir)
	require.Empty(t, op)
	require.Empty(t, g("status", "--porcelain"))
}
