package git

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHeadFileAndSkipWorktreeFiles(t *testing.T) {
	t.Parallel()
	dir, _ := newRepo(t)
	data, found, err := HeadFile(dir, "a.txt")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "one\ntwo\nthree\n", string(data))
	_, found, err = HeadFile(dir, "nope/x.json")
	require.NoError(t, err)
	require.False(t, found)
	commitFile(t, dir, "odd name.json", "", "empty file")
	data, found, err = HeadFile(dir, "odd name.json")
	require.NoError(t, err)
	require.True(t, found)
	require.Empty(t, data)

	skip, err := SkipWorktreeFiles(dir, []string{"a.txt", "odd name.json", "missing"})
	require.NoError(t, err)
	require.Empty(t, skip)
	require.NoError(t, SkipWorktree(dir, "odd name.json"))
	skip, err = SkipWorktreeFiles(dir, []string{"a.txt", "odd name.json", "missing"})
	require.NoError(t, err)
	require.Equal(t, []string{"odd name.json"}, skip)
}

// A tracked settings file holding lines that must not be committed: the
// overlay content is what the snapshot and the commit hold, the worktree
// copy is left alone and stays hidden from git status.
func TestCommitPathsWithOverlayKeepsTheWorktreeCopy(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	commitFile(t, dir, ".gemini/settings.json", "{\"a\": 1}\n", "settings")
	commitFile(t, dir, "gone.json", "{}\n", "another")
	local := "{\"a\": 2, \"owt\": true}\n"
	write(t, filepath.Join(dir, ".gemini/settings.json"), local)
	require.NoError(t, SkipWorktree(dir, ".gemini/settings.json"))
	require.NoError(t, SkipWorktree(dir, "gone.json"))
	require.NoError(t, os.Remove(filepath.Join(dir, "gone.json")))
	write(t, filepath.Join(dir, "b.txt"), "b\n")
	require.Equal(t, "?? b.txt", g(t, dir, "status", "--porcelain"), "skip-worktree hides both")

	paths := []string{".gemini/settings.json", "b.txt", "gone.json"}
	over := []Overlay{{Path: ".gemini/settings.json", Data: []byte("{\"a\": 2}\n")}, {Path: "gone.json", Delete: true}}
	head := g(t, dir, "rev-parse", "HEAD")
	snap, err := SnapshotWith(dir, paths, over)
	require.NoError(t, err)
	require.Equal(t, head, g(t, dir, "rev-parse", "HEAD"))
	require.Equal(t, "?? b.txt", g(t, dir, "status", "--porcelain"), "the snapshot touched nothing")

	c, err := CommitPathsWith(dir, paths, over, "ship it\n")
	require.NoError(t, err)
	require.Equal(t, "{\"a\": 2}", g(t, dir, "show", c+":.gemini/settings.json"))
	require.Equal(t, "M\t.gemini/settings.json\nA\tb.txt\nD\tgone.json", g(t, dir, "diff", "--name-status", "--no-renames", head, c))
	snapTree, _ := r.TreeOf(snap)
	commitTree, _ := r.TreeOf(c)
	require.Equal(t, snapTree, commitTree, "the snapshot predicted the commit")
	got, err := os.ReadFile(filepath.Join(dir, ".gemini/settings.json"))
	require.NoError(t, err)
	require.Equal(t, local, string(got), "the worktree copy is untouched")
	require.Empty(t, g(t, dir, "status", "--porcelain"), "and still hidden")
	skip, err := SkipWorktreeFiles(dir, []string{".gemini/settings.json"})
	require.NoError(t, err)
	require.Equal(t, []string{".gemini/settings.json"}, skip)
}

func TestCommitPathsWithPutsTheIndexBackWhenTheCommitFails(t *testing.T) {
	t.Parallel()
	dir, _ := newRepo(t)
	commitFile(t, dir, "s.json", "{\"a\": 1}\n", "settings")
	write(t, filepath.Join(dir, "s.json"), "{\"a\": 2, \"owt\": true}\n")
	require.NoError(t, SkipWorktree(dir, "s.json"))
	hooks := g(t, dir, "rev-parse", "--git-path", "hooks")
	if !filepath.IsAbs(hooks) {
		hooks = filepath.Join(dir, hooks)
	}
	write(t, filepath.Join(hooks, "pre-commit"), "#!/bin/sh\nexit 1\n")
	require.NoError(t, os.Chmod(filepath.Join(hooks, "pre-commit"), 0o755))
	indexBefore := g(t, dir, "ls-files", "-s", "-v")
	head := g(t, dir, "rev-parse", "HEAD")

	_, err := CommitPathsWith(dir, []string{"s.json"}, []Overlay{{Path: "s.json", Data: []byte("{\"a\": 2}\n")}}, "no\n")
	require.Error(t, err)
	require.Equal(t, head, g(t, dir, "rev-parse", "HEAD"))
	require.Equal(t, indexBefore, g(t, dir, "ls-files", "-s", "-v"), "entry and skip-worktree mark are back")
	require.Empty(t, g(t, dir, "status", "--porcelain"))
}
