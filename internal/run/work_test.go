package run

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWorkIsWhatTheTasksOwnBranchChanges(t *testing.T) {
	rec, dir := taskRepo(t)
	w, err := WorkOf(rec)
	require.NoError(t, err)
	require.True(t, w.Empty(), "a new branch holds nothing")
	require.Empty(t, w.Problem(dir))
	require.Contains(t, w.EmptyWhy(), "no commits ahead")

	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "nothing")
	w, _ = WorkOf(rec)
	require.Equal(t, 1, w.Commits)
	require.True(t, w.Unchanged)
	require.True(t, w.Empty(), "an empty commit is no change")
	require.Contains(t, w.EmptyWhy(), "no change")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	gitIn(t, dir, "add", "a.txt")
	gitIn(t, dir, "commit", "-q", "-m", "add a")
	w, _ = WorkOf(rec)
	require.False(t, w.Empty())
	gitIn(t, dir, "rm", "-q", "a.txt")
	gitIn(t, dir, "commit", "-q", "-m", "remove a")
	w, _ = WorkOf(rec)
	require.Equal(t, 3, w.Commits)
	require.True(t, w.Empty(), "added and removed again: no net change")
}

func TestWorkOffTheTasksBranchIsNotItsWork(t *testing.T) {
	rec, dir := taskRepo(t)
	gitIn(t, dir, "switch", "-q", "-c", "elsewhere")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	gitIn(t, dir, "add", "a.txt")
	gitIn(t, dir, "commit", "-q", "-m", "add a")
	w, err := WorkOf(rec)
	require.NoError(t, err)
	require.Contains(t, w.Problem(dir), "HEAD in "+dir+" is on elsewhere, not on the task's branch task")
	require.True(t, w.Empty(), "the commits are not on the task's branch")

	gitIn(t, dir, "switch", "-q", "--detach")
	w, _ = WorkOf(rec)
	require.Contains(t, w.Problem(dir), "is detached at ")

	gitIn(t, dir, "branch", "-q", "-D", "task")
	w, err = WorkOf(rec)
	require.NoError(t, err)
	require.Contains(t, w.Problem(dir), "its branch task no longer exists")
}
