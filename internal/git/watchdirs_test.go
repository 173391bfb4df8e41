package git

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The ref files say what git says, packed or loose, without a process.
func TestReadBranchTipsMatchesGit(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	g(t, dir, "branch", "feat/deep/one")
	g(t, dir, "branch", "two")
	g(t, dir, "pack-refs", "--all")
	commitFile(t, dir, "b.txt", "b\n", "b") // main loose again, over its packed line
	g(t, dir, "branch", "three")
	want, err := r.BranchTips()
	require.NoError(t, err)
	got, err := ReadBranchTips(filepath.Join(dir, ".git"))
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// A linked worktree's own git dir and the common one; the folders git
// ignores whole.
func TestGitDirsAndIgnoredDirs(t *testing.T) {
	t.Parallel()
	dir, _ := newRepo(t)
	own, common, err := GitDirs(dir)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, ".git"), own)
	require.Equal(t, own, common)
	wt := filepath.Join(filepath.Dir(dir), "wt")
	g(t, dir, "worktree", "add", "-q", "-b", "w", wt)
	own, common, err = GitDirs(wt)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, ".git", "worktrees", "wt"), own)
	require.Equal(t, filepath.Join(dir, ".git"), common)

	write(t, filepath.Join(wt, ".gitignore"), "node_modules/\n*.log\n")
	write(t, filepath.Join(wt, "node_modules", "x", "y.js"), "y")
	write(t, filepath.Join(wt, "src", "a.log"), "l")
	write(t, filepath.Join(wt, "src", "a.go"), "package a")
	dirs, err := IgnoredDirs(wt)
	require.NoError(t, err)
	require.Equal(t, []string{"node_modules"}, dirs)
}
