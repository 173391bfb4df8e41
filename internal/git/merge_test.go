package git

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// forked makes main and a branch feat that both changed a.txt's first line
// (a conflict) and each added a file of its own.
func forked(t *testing.T) (string, Repo) {
	t.Helper()
	dir, r := newRepo(t)
	g(t, dir, "branch", "feat")
	commitFile(t, dir, "a.txt", "ONE-main\ntwo\nthree\n", "main edits")
	commitFile(t, dir, "m.txt", "main only\n", "main adds")
	g(t, dir, "checkout", "-q", "feat")
	commitFile(t, dir, "a.txt", "ONE-feat\ntwo\nthree\n", "feat edits")
	commitFile(t, dir, "f.txt", "feat only\n", "feat adds")
	g(t, dir, "checkout", "-q", "main")
	return dir, r
}

func TestMergeTreeCleanAndConflicted(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	g(t, dir, "branch", "feat")
	commitFile(t, dir, "m.txt", "m\n", "main")
	g(t, dir, "checkout", "-q", "feat")
	commitFile(t, dir, "f.txt", "f\n", "feat")
	g(t, dir, "checkout", "-q", "main")

	res, err := r.MergeTree("main", "feat")
	require.NoError(t, err)
	require.True(t, res.Clean())
	require.Equal(t, "f\n", g(t, dir, "cat-file", "-p", res.Tree+":f.txt")+"\n")

	dir2, r2 := forked(t)
	before := g(t, dir2, "rev-parse", "main", "feat")
	res, err = r2.MergeTree("main", "feat")
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, res.Conflicts)
	require.Len(t, res.Entries, 3, "base, ours and theirs stages")
	require.Equal(t, before, g(t, dir2, "rev-parse", "main", "feat"), "no ref moved")
	require.Empty(t, g(t, dir2, "status", "--porcelain"), "no file touched")

	_, err = r2.MergeTree("main", "no-such-branch")
	require.Error(t, err)
}

func TestFavorResolvesContentConflicts(t *testing.T) {
	t.Parallel()
	dir, r := forked(t)
	res, err := r.MergeTree("main", "feat")
	require.NoError(t, err)
	for side, want := range map[string]string{"ours": "ONE-main", "theirs": "ONE-feat"} {
		tree, unresolved, err := r.Favor(res, side)
		require.NoError(t, err)
		require.Empty(t, unresolved)
		require.Equal(t, want+"\ntwo\nthree", g(t, dir, "cat-file", "-p", tree+":a.txt"))
		require.Equal(t, "feat only", g(t, dir, "cat-file", "-p", tree+":f.txt"), "the rest is merged")
		require.Equal(t, "main only", g(t, dir, "cat-file", "-p", tree+":m.txt"))
	}
	_, _, err = r.Favor(res, "mine")
	require.Error(t, err)

	// modify/delete cannot be settled by favouring a side's hunks.
	dir2, r2 := newRepo(t)
	g(t, dir2, "branch", "feat")
	g(t, dir2, "rm", "-q", "a.txt")
	g(t, dir2, "commit", "-q", "-m", "delete")
	g(t, dir2, "checkout", "-q", "feat")
	commitFile(t, dir2, "a.txt", "changed\n", "modify")
	res, err = r2.MergeTree("main", "feat")
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, res.Conflicts)
	_, unresolved, err := r2.Favor(res, "theirs")
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, unresolved)
}

func TestCommitTreeAndUpdateBranchCompareAndSwap(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	g(t, dir, "branch", "target")
	old := g(t, dir, "rev-parse", "target")
	tree, err := r.TreeOf("main")
	require.NoError(t, err)
	c, err := r.CommitTree(tree, []string{old}, "subject\n\nbody\n")
	require.NoError(t, err)
	require.Equal(t, "subject\n\nbody", g(t, dir, "log", "-1", "--format=%B", c))

	require.Error(t, r.UpdateBranch("target", c, c, "wrong old value"), "refused: target is not at c")
	require.Equal(t, old, g(t, dir, "rev-parse", "target"))
	require.NoError(t, r.UpdateBranch("target", c, old, "owt test"))
	require.Equal(t, c, g(t, dir, "rev-parse", "target"))
	require.Contains(t, g(t, dir, "reflog", "-1", "target"), "owt test")
}

func TestCheckedOutAt(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	wt := filepath.Join(filepath.Dir(dir), "wt")
	require.NoError(t, r.AddWorktree(wt, "feat", "main"))
	g(t, dir, "branch", "lonely")

	for branch, want := range map[string]string{"main": dir, "feat": wt, "lonely": ""} {
		path, found, err := r.CheckedOutAt(branch)
		require.NoError(t, err)
		require.Equal(t, want != "", found, branch)
		require.Equal(t, want, path, branch)
	}

	// A rebase in progress holds its branch although HEAD is detached.
	commitFile(t, wt, "a.txt", "feat\n", "feat")
	commitFile(t, dir, "a.txt", "main\n", "main")
	_, err := run(wt, "rebase", "main")
	require.Error(t, err)
	path, found, err := r.CheckedOutAt("feat")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, wt, path)
	op, err := OperationInProgress(wt)
	require.NoError(t, err)
	require.Equal(t, "rebase", op)
}

func TestTrackedChangesIgnoresUntrackedAndIgnored(t *testing.T) {
	t.Parallel()
	dir, _ := newRepo(t)
	commitFile(t, dir, ".gitignore", ".env\n", "ignore")
	write(t, filepath.Join(dir, ".env"), "SECRET=1\n")
	write(t, filepath.Join(dir, "notes.txt"), "scratch\n")
	files, err := TrackedChanges(dir)
	require.NoError(t, err)
	require.Empty(t, files)
	write(t, filepath.Join(dir, "a.txt"), "changed\n")
	files, err = TrackedChanges(dir)
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, files)
	op, err := OperationInProgress(dir)
	require.NoError(t, err)
	require.Empty(t, op)
}

func TestUntrackedCollisions(t *testing.T) {
	t.Parallel()
	dir, _ := newRepo(t)
	from := g(t, dir, "rev-parse", "HEAD")
	g(t, dir, "checkout", "-q", "-b", "feat")
	commitFile(t, dir, "app.log", "tracked now\n", "add log")
	commitFile(t, dir, "cache/x", "x\n", "add cache/x")
	commitFile(t, dir, "new.txt", "new\n", "add new")
	to := g(t, dir, "rev-parse", "HEAD")
	g(t, dir, "checkout", "-q", "main")

	write(t, filepath.Join(dir, "app.log"), "the user's log\n")
	write(t, filepath.Join(dir, "cache"), "a file where a folder comes\n")
	hits, err := UntrackedCollisions(dir, from, to)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"app.log", "cache"}, hits)

	// A file the branch adds that the checkout's own branch added and
	// tracks as well is the merge's business, not a collision.
	commitFile(t, dir, "new.txt", "new\n", "main adds new.txt too")
	hits, err = UntrackedCollisions(dir, from, to)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"app.log", "cache"}, hits)
}

func TestFastForwardMergeIntoAndRebase(t *testing.T) {
	t.Parallel()
	dir, r := forked(t)
	wt := filepath.Join(filepath.Dir(dir), "wt")
	g(t, dir, "worktree", "add", "-q", wt, "feat")
	featBefore := g(t, wt, "rev-parse", "HEAD")

	// A conflicting merge is aborted: branch and files as they were.
	err := MergeInto(wt, "main", "Merge main", "", false)
	var ce *ConflictError
	require.ErrorAs(t, err, &ce)
	require.True(t, errors.Is(err, ErrConflict))
	require.Equal(t, []string{"a.txt"}, ce.Files)
	require.Equal(t, featBefore, g(t, wt, "rev-parse", "HEAD"))
	require.Empty(t, g(t, wt, "status", "--porcelain"))

	// The same with a rebase.
	err = Rebase(wt, "main", "", false)
	require.ErrorAs(t, err, &ce)
	require.Equal(t, featBefore, g(t, wt, "rev-parse", "HEAD"))
	require.Empty(t, g(t, wt, "status", "--porcelain"))
	op, _ := OperationInProgress(wt)
	require.Empty(t, op)

	// leave keeps the conflict for someone to resolve.
	err = MergeInto(wt, "main", "Merge main", "", true)
	require.ErrorAs(t, err, &ce)
	op, _ = OperationInProgress(wt)
	require.Equal(t, "merge", op)
	data, _ := os.ReadFile(filepath.Join(wt, "a.txt"))
	require.Contains(t, string(data), "<<<<<<<")
	g(t, wt, "merge", "--abort")

	// A favoured rebase goes through; main then fast-forwards to it.
	require.NoError(t, Rebase(wt, "main", "theirs", false))
	tip := g(t, wt, "rev-parse", "HEAD")
	require.True(t, r.IsAncestor("main", tip))
	require.NoError(t, FastForward(dir, tip, "owt test"))
	require.Equal(t, tip, g(t, dir, "rev-parse", "main"))
	data, _ = os.ReadFile(filepath.Join(dir, "a.txt"))
	require.Equal(t, "ONE-feat\ntwo\nthree\n", string(data))
}

func TestCommitPathsAndSnapshot(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	write(t, filepath.Join(dir, "new file.txt"), "new\n")
	write(t, filepath.Join(dir, ":(exclude)odd"), "odd name\n")
	require.NoError(t, os.Remove(filepath.Join(dir, "a.txt")))
	write(t, filepath.Join(dir, "other.txt"), "not listed\n")
	paths := []string{"new file.txt", ":(exclude)odd", "a.txt"}

	head := g(t, dir, "rev-parse", "HEAD")
	statusBefore := g(t, dir, "status", "--porcelain")
	snap, err := Snapshot(dir, paths)
	require.NoError(t, err)
	require.Equal(t, head, g(t, dir, "rev-parse", "HEAD"), "HEAD unchanged")
	require.Equal(t, statusBefore, g(t, dir, "status", "--porcelain"), "index and files unchanged")
	require.Equal(t, head, g(t, dir, "rev-parse", snap+"^"))
	files, err := r.ChangedFiles(head, snap)
	require.NoError(t, err)
	require.Equal(t, []string{":(exclude)odd", "a.txt", "new file.txt"}, files)

	c, err := CommitPaths(dir, paths, "ship it\n")
	require.NoError(t, err)
	require.Equal(t, c, g(t, dir, "rev-parse", "HEAD"))
	snapTree, _ := r.TreeOf(snap)
	commitTree, _ := r.TreeOf(c)
	require.Equal(t, snapTree, commitTree, "the snapshot predicted the commit")
	require.Equal(t, "?? other.txt", g(t, dir, "status", "--porcelain"))

	tracked, err := Tracked(dir, "new file.txt", "other.txt", "missing")
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"new file.txt": true}, tracked)
	subjects, err := r.Subjects(head, "HEAD")
	require.NoError(t, err)
	require.Equal(t, []string{"ship it"}, subjects)
}

func TestRemoveExcludesKeepsTheRest(t *testing.T) {
	t.Parallel()
	_, r := newRepo(t)
	path, err := r.ExcludeFile()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte("# user\n*.tmp\n"), 0o644))
	_, err = r.AddExcludes("/CLAUDE.local.md", "/GEMINI.md")
	require.NoError(t, err)
	require.NoError(t, r.RemoveExcludes("/GEMINI.md"))
	data, _ := os.ReadFile(path)
	require.Equal(t, "# user\n*.tmp\n# owt\n/CLAUDE.local.md\n", string(data))
	require.NoError(t, r.RemoveExcludes("/CLAUDE.local.md", "*.nothing"))
	data, _ = os.ReadFile(path)
	require.Equal(t, "# user\n*.tmp\n", string(data))
}

func TestLockFiles(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	wt := filepath.Join(filepath.Dir(dir), "wt")
	require.NoError(t, r.AddWorktree(wt, "feat", "main"))
	locks, err := r.LockFiles()
	require.NoError(t, err)
	require.Empty(t, locks)
	write(t, filepath.Join(dir, ".git", "index.lock"), "")
	write(t, filepath.Join(dir, ".git", "refs", "heads", "feat.lock"), "")
	wtGit := g(t, wt, "rev-parse", "--absolute-git-dir")
	write(t, filepath.Join(wtGit, "index.lock"), "")
	locks, err = r.LockFiles()
	require.NoError(t, err)
	require.Len(t, locks, 3)
	for _, l := range locks {
		require.WithinDuration(t, time.Now(), l.ModTime, time.Minute)
	}
}
