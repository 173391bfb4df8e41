package run

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJudgedWorkLeavesOutWhatTheBaseBrought(t *testing.T) {
	rec, dir := taskRepo(t)
	moveMain(t, dir, "m1.txt")
	gitIn(t, dir, "merge", "-q", "--no-edit", "main") // a fast-forward
	w, err := judgedWorkOf(rec, "")
	require.NoError(t, err)
	require.True(t, w.Empty(), "a branch that only pulled the base holds no work")
	require.Contains(t, w.EmptyWhy(), "main")
	w, err = WorkOf(rec)
	require.NoError(t, err)
	require.False(t, w.Empty(), "against its start alone it moved")

	moveMain(t, dir, "m2.txt")
	gitIn(t, dir, "merge", "-q", "--no-ff", "--no-edit", "main") // a merge commit of the base only
	w, _ = judgedWorkOf(rec, "")
	require.Equal(t, 1, w.Commits)
	require.True(t, w.Empty(), "a merge commit of the base is no work")

	commitFile(t, dir, "a.txt")
	moveMain(t, dir, "m3.txt")
	gitIn(t, dir, "merge", "-q", "--no-edit", "main")
	w, _ = judgedWorkOf(rec, "")
	require.False(t, w.Empty(), "its own commit, the base merged after it, is work")
	require.Empty(t, w.Base)
}

func TestJudgedWorkLeavesOutWhatIntoBrought(t *testing.T) {
	rec, dir := taskRepo(t)
	gitIn(t, dir, "branch", "into", "main")
	gitIn(t, dir, "switch", "-q", "into")
	commitFile(t, dir, "landed.txt") // another task's work, landed
	gitIn(t, dir, "switch", "-q", "task")
	gitIn(t, dir, "merge", "-q", "--no-edit", "into")
	w, err := judgedWorkOf(rec, "into")
	require.NoError(t, err)
	require.True(t, w.Empty(), "a branch that only merged into holds no work")
	require.Equal(t, "into", w.Base)
	require.Contains(t, w.EmptyWhy(), "into")

	commitFile(t, dir, "a.txt")
	w, _ = judgedWorkOf(rec, "into")
	require.False(t, w.Empty())
	require.Equal(t, 1, w.Commits)
}

// A memoized reading is the fresh one: reused while nothing moved, read
// again when the branch, the base or into moved.
func TestWorkMemoReadsAgainWhenABranchMoved(t *testing.T) {
	rec, dir := taskRepo(t)
	var memo WorkMemo
	same := func() BranchWork {
		t.Helper()
		fresh, err := judgedWorkOf(rec, "into")
		require.NoError(t, err)
		got, err := memo.JudgedWorkOf(rec, "into")
		require.NoError(t, err)
		require.Equal(t, fresh, got)
		return got
	}
	gitIn(t, dir, "branch", "into", "main")
	require.True(t, same().Empty())
	require.True(t, same().Empty(), "reused")
	commitFile(t, dir, "a.txt")
	require.Equal(t, 1, same().Commits)
	moveMain(t, dir, "m1.txt")
	gitIn(t, dir, "merge", "-q", "--no-edit", "main")
	require.Equal(t, 2, same().Commits, "its commit and the merge")
	gitIn(t, dir, "switch", "-q", "--detach")
	require.NotEmpty(t, same().Problem(dir), "HEAD is read each time")
}
