package git

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"
)

// TestMain isolates git from the user's and the system's configuration once
// for the whole package, so tests can run in parallel (t.Setenv forbids it).
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "owt-git-test-home")
	if err != nil {
		panic(err)
	}
	for k, v := range map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "owt test",
		"GIT_AUTHOR_EMAIL":    "owt@example.com",
		"GIT_COMMITTER_NAME":  "owt test",
		"GIT_COMMITTER_EMAIL": "owt@example.com",
	} {
		os.Setenv(k, v)
	}
	for _, k := range append(scrubbedEnv, "GIT_CONFIG_GLOBAL", "GIT_CONFIG_PARAMETERS") {
		os.Unsetenv(k)
	}
	xdg.Reload() // the XDG directories are read once, at start
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// g runs git for test setup and fails the test on error.
func g(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := run(dir, args...)
	require.NoError(t, err, "git %v", args)
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func tmp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return d
}

// newRepo makes a repository on branch main with one commit holding a.txt.
func newRepo(t *testing.T) (string, Repo) {
	t.Helper()
	dir := filepath.Join(tmp(t), "proj")
	require.NoError(t, os.Mkdir(dir, 0o755))
	g(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, "a.txt"), "one\ntwo\nthree\n")
	g(t, dir, "add", "a.txt")
	g(t, dir, "commit", "-q", "-m", "init")
	r, err := FindRepo(dir)
	require.NoError(t, err)
	return dir, r
}

func commitFile(t *testing.T, dir, name, content, msg string) {
	t.Helper()
	write(t, filepath.Join(dir, name), content)
	g(t, dir, "add", "--", name)
	g(t, dir, "commit", "-q", "-m", msg)
}

func TestFindRepo(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	require.Equal(t, dir, r.Root)
	require.Equal(t, filepath.Join(dir, ".git"), r.CommonDir)
	require.Equal(t, "proj", r.Name())

	sub := filepath.Join(dir, "x", "y")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	rs, err := FindRepo(sub)
	require.NoError(t, err)
	require.Equal(t, r, rs)

	wt := filepath.Join(tmp(t), "wt")
	require.NoError(t, r.AddWorktree(wt, "feat/a", "main"))
	require.NoError(t, os.MkdirAll(filepath.Join(wt, "deep"), 0o755))
	rw, err := FindRepo(filepath.Join(wt, "deep"))
	require.NoError(t, err)
	require.Equal(t, r.Root, rw.Root, "a linked worktree maps to the main checkout")
	require.Equal(t, r.CommonDir, rw.CommonDir)
	require.Equal(t, "main", r.HeadBranch)
	require.Equal(t, "feat/a", rw.HeadBranch, "the branch of the directory asked about")
	top, err := TopLevel(filepath.Join(wt, "deep"))
	require.NoError(t, err)
	require.Equal(t, wt, top)

	_, err = FindRepo(tmp(t))
	require.ErrorIs(t, err, ErrNotRepo)
	_, err = TopLevel(tmp(t))
	require.ErrorIs(t, err, ErrNotRepo)

	bare := filepath.Join(tmp(t), "b.git")
	g(t, tmp(t), "init", "-q", "--bare", bare)
	_, err = FindRepo(bare)
	require.Error(t, err)
	require.NotErrorIs(t, err, ErrNotRepo)
}

func TestFindRepoThroughSymlink(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	link := filepath.Join(tmp(t), "link")
	require.NoError(t, os.Symlink(dir, link))
	rl, err := FindRepo(link)
	require.NoError(t, err)
	require.Equal(t, r, rl)
}

func TestCurrentBranch(t *testing.T) {
	t.Parallel()
	dir, _ := newRepo(t)
	b, err := CurrentBranch(dir)
	require.NoError(t, err)
	require.Equal(t, "main", b)

	g(t, dir, "tag", "feat")
	g(t, dir, "switch", "-q", "-c", "feat")
	b, err = CurrentBranch(dir)
	require.NoError(t, err)
	require.Equal(t, "feat", b, "not heads/feat despite the same-named tag")

	g(t, dir, "switch", "-q", "--detach", "HEAD")
	b, err = CurrentBranch(dir)
	require.NoError(t, err)
	require.Equal(t, "", b)

	_, err = CurrentBranch(tmp(t))
	require.ErrorIs(t, err, ErrNotRepo)
}

func TestResolveCommitAndBranchExists(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	head := g(t, dir, "rev-parse", "HEAD")
	g(t, dir, "tag", "-a", "-m", "annotated", "v1")

	for _, ref := range []string{"HEAD", "main", "v1", head[:8]} {
		sha, err := r.ResolveCommit(ref)
		require.NoError(t, err, ref)
		require.Equal(t, head, sha, ref)
	}
	for _, ref := range []string{"nope", "-h", "HEAD:a.txt"} {
		_, err := r.ResolveCommit(ref)
		require.Error(t, err, ref)
	}

	require.True(t, r.BranchExists("main"))
	require.False(t, r.BranchExists("nope"))
	require.False(t, r.BranchExists("v1"), "tags are not branches")
	require.False(t, r.BranchExists(""))
}

func TestValidBranchName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"feat/x", "owt/fix-login-bug", "a", "ünïcode"} {
		require.True(t, ValidBranchName(ok), ok)
	}
	for _, bad := range []string{"", "a..b", "-x", "x.lock", "a b", "HEAD", "@{-1}", "a~b", "a:b", "/a", "a/", "@", "a\\b", "x/.y"} {
		require.False(t, ValidBranchName(bad), bad)
	}
}

func TestAddWorktree(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	base := g(t, dir, "rev-parse", "HEAD")
	commitFile(t, dir, "b.txt", "b\n", "second")

	wt := filepath.Join(tmp(t), "wt one")
	require.NoError(t, r.AddWorktree(wt, "owt/one", base))
	require.True(t, r.BranchExists("owt/one"))
	b, err := CurrentBranch(wt)
	require.NoError(t, err)
	require.Equal(t, "owt/one", b)
	require.Equal(t, base, g(t, wt, "rev-parse", "HEAD"))
	_, err = run(dir, "config", "branch.owt/one.merge")
	require.Error(t, err, "the new branch must not track its base")

	// Without a base, the branch starts at the main checkout's HEAD.
	wt2 := filepath.Join(tmp(t), "wt2")
	require.NoError(t, r.AddWorktree(wt2, "owt/two", ""))
	require.Equal(t, g(t, dir, "rev-parse", "HEAD"), g(t, wt2, "rev-parse", "HEAD"))
}

func TestAddWorktreeFailureLeavesNoBranch(t *testing.T) {
	t.Parallel()
	_, r := newRepo(t)

	nonEmpty := filepath.Join(tmp(t), "busy")
	write(t, filepath.Join(nonEmpty, "keep.txt"), "mine\n")
	err := r.AddWorktree(nonEmpty, "owt/busy", "main")
	require.Error(t, err)
	require.Contains(t, err.Error(), "git worktree add "+nonEmpty)
	require.Contains(t, err.Error(), "already exists", "git's stderr is part of the error")
	require.False(t, r.BranchExists("owt/busy"))
	data, err := os.ReadFile(filepath.Join(nonEmpty, "keep.txt"))
	require.NoError(t, err)
	require.Equal(t, "mine\n", string(data))

	file := filepath.Join(tmp(t), "file")
	write(t, file, "x")
	require.Error(t, r.AddWorktree(file, "owt/file", "main"))
	require.False(t, r.BranchExists("owt/file"))

	require.Error(t, r.AddWorktree(filepath.Join(tmp(t), "wt"), "owt/nobase", "no-such-base"))
	require.False(t, r.BranchExists("owt/nobase"))

	require.Error(t, r.AddWorktree(filepath.Join(tmp(t), "wt"), "-x", "main"))

	// A branch that existed before is the user's: a failure must not delete it.
	g(t, r.Root, "branch", "mine")
	require.Error(t, r.AddWorktree(filepath.Join(tmp(t), "wt"), "mine", "main"))
	require.True(t, r.BranchExists("mine"))

	wts, err := r.Worktrees()
	require.NoError(t, err)
	require.Len(t, wts, 1)
}

func TestRemoveWorktree(t *testing.T) {
	t.Parallel()
	_, r := newRepo(t)

	wt := filepath.Join(tmp(t), "wt")
	require.NoError(t, r.AddWorktree(wt, "owt/rm", "main"))
	write(t, filepath.Join(wt, "new.txt"), "untracked\n")
	err := r.RemoveWorktree(wt, false)
	require.Error(t, err, "dirty worktree needs force")
	require.DirExists(t, wt)
	require.NoError(t, r.RemoveWorktree(wt, true))
	require.NoDirExists(t, wt)
	require.True(t, r.BranchExists("owt/rm"), "removing a worktree keeps its branch")

	gone := filepath.Join(tmp(t), "gone")
	require.NoError(t, r.AddWorktree(gone, "owt/gone", "main"))
	require.NoError(t, os.RemoveAll(gone))
	require.NoError(t, r.RemoveWorktree(gone, false))
	wts, err := r.Worktrees()
	require.NoError(t, err)
	require.Len(t, wts, 1, "the deleted worktree is pruned")

	// Its branch can be deleted now that no worktree holds it.
	require.NoError(t, r.DeleteBranch("owt/gone", false))
	require.False(t, r.BranchExists("owt/gone"))
}

func TestDeleteBranch(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	g(t, dir, "switch", "-q", "-c", "unmerged")
	commitFile(t, dir, "u.txt", "u\n", "unmerged work")
	g(t, dir, "switch", "-q", "main")

	err := r.DeleteBranch("unmerged", false)
	require.Error(t, err)
	require.Contains(t, err.Error(), "not fully merged")
	require.True(t, r.BranchExists("unmerged"))
	require.NoError(t, r.DeleteBranch("unmerged", true))
	require.False(t, r.BranchExists("unmerged"))
	require.Error(t, r.DeleteBranch("unmerged", true))
}

func TestWorktrees(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	head := g(t, dir, "rev-parse", "HEAD")

	branch := filepath.Join(tmp(t), "branch wt")
	require.NoError(t, r.AddWorktree(branch, "owt/b", "main"))
	detached := filepath.Join(tmp(t), "detached")
	g(t, dir, "worktree", "add", "-q", "--detach", detached, "main")
	locked := filepath.Join(tmp(t), "locked") // created before "gone": sorts first
	g(t, dir, "worktree", "add", "-q", "--lock", "-b", "owt/l", locked, "main")
	gone := filepath.Join(tmp(t), "gone")
	g(t, dir, "worktree", "add", "-q", "-b", "owt/g", gone, "main")
	require.NoError(t, os.RemoveAll(gone))

	wts, err := r.Worktrees()
	require.NoError(t, err)
	require.Equal(t, []Worktree{
		{Path: dir, Head: head, Branch: "main"},
		{Path: branch, Head: head, Branch: "owt/b"},
		{Path: detached, Head: head, Detached: true},
		{Path: locked, Head: head, Branch: "owt/l", Locked: true},
		{Path: gone, Head: head, Branch: "owt/g", Prunable: true},
	}, sortedAfterMain(wts))
}

// sortedAfterMain orders linked worktrees by path (git lists them by their
// admin directory name), keeping the main worktree first.
func sortedAfterMain(w []Worktree) []Worktree {
	rest := slices.Clone(w[1:])
	slices.SortFunc(rest, func(a, b Worktree) int { return strings.Compare(a.Path, b.Path) })
	return append([]Worktree{w[0]}, rest...)
}

func TestParseWorktrees(t *testing.T) {
	t.Parallel()
	out := "worktree /r/b.git\x00bare\x00\x00" +
		"worktree /w/x\x00HEAD abc\x00branch refs/heads/x\x00locked reason\nwith newline\x00future-attr\x00\x00"
	require.Equal(t, []Worktree{
		{Path: "/r/b.git", Bare: true},
		{Path: "/w/x", Head: "abc", Branch: "x", Locked: true},
	}, parseWorktrees([]byte(out)))
	require.Empty(t, parseWorktrees(nil))
}

func TestDirtyFiles(t *testing.T) {
	t.Parallel()
	dir, _ := newRepo(t)
	write(t, filepath.Join(dir, ".gitignore"), "*.log\n")
	commitFile(t, dir, "old name.txt", "rename me\n", "to rename")
	commitFile(t, dir, "del.txt", "bye\n", "to delete")
	commitFile(t, dir, ".gitignore", "*.log\n", "ignore")

	files, err := DirtyFiles(dir)
	require.NoError(t, err)
	require.Empty(t, files)

	write(t, filepath.Join(dir, "a.txt"), "changed\n") // modified
	write(t, filepath.Join(dir, "staged.txt"), "s\n")  // staged new
	g(t, dir, "add", "staged.txt")
	require.NoError(t, os.Remove(filepath.Join(dir, "del.txt"))) // deleted
	write(t, filepath.Join(dir, "dir", "ünï códe.txt"), "u\n")   // untracked
	write(t, filepath.Join(dir, "debug.log"), "noise\n")         // ignored
	g(t, dir, "mv", "old name.txt", "new name.txt")              // renamed

	files, err = DirtyFiles(dir)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{
		"a.txt", "staged.txt", "del.txt", "dir/ünï códe.txt", "new name.txt", "old name.txt",
	}, files)

	_, err = DirtyFiles(tmp(t))
	require.ErrorIs(t, err, ErrNotRepo)
}

func TestAheadBehindAndIsAncestor(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	wt := filepath.Join(tmp(t), "wt")
	require.NoError(t, r.AddWorktree(wt, "owt/ab", "main"))

	ahead, behind, err := r.AheadBehind("main", "owt/ab")
	require.NoError(t, err)
	require.Equal(t, [2]int{0, 0}, [2]int{ahead, behind})
	require.True(t, r.IsAncestor("main", "owt/ab"))

	commitFile(t, wt, "w1.txt", "1\n", "w1")
	commitFile(t, wt, "w2.txt", "2\n", "w2")
	commitFile(t, wt, "w3.txt", "3\n", "w3")
	commitFile(t, dir, "m1.txt", "1\n", "m1")

	ahead, behind, err = r.AheadBehind("main", "owt/ab")
	require.NoError(t, err)
	require.Equal(t, 3, ahead)
	require.Equal(t, 1, behind)
	require.False(t, r.IsAncestor("main", "owt/ab"))
	require.False(t, r.IsAncestor("owt/ab", "main"))
	require.True(t, r.IsAncestor("main~1", "owt/ab"))
	require.False(t, r.IsAncestor("nope", "main"))

	_, _, err = r.AheadBehind("main", "nope")
	require.Error(t, err)
}

func TestDiff(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	wt := filepath.Join(tmp(t), "wt")
	require.NoError(t, r.AddWorktree(wt, "owt/d", "main"))

	st, err := Diff(wt, "main")
	require.NoError(t, err)
	require.Equal(t, DiffStat{}, st)

	// Committed: a new file of 2 lines and a binary file.
	commitFile(t, wt, "new.txt", "x\ny\n", "new")
	commitFile(t, wt, "bin.dat", "\x00\x01\x02binary", "bin")
	// Uncommitted: a.txt "two" -> "2" and "three" deleted.
	write(t, filepath.Join(wt, "a.txt"), "one\n2\n")
	// Untracked files are not part of the diff.
	write(t, filepath.Join(wt, "untracked.txt"), "u\n")
	// Work landing on main after the branch point is not this worktree's.
	commitFile(t, dir, "main-only.txt", "m\nm\nm\n", "main moves")

	st, err = Diff(wt, "main")
	require.NoError(t, err)
	require.Equal(t, DiffStat{Files: 3, Insertions: 3, Deletions: 2}, st)

	_, err = Diff(wt, "no-such-base")
	require.Error(t, err)
}

func TestAddExcludes(t *testing.T) {
	t.Parallel()
	_, r := newRepo(t)
	path, err := r.ExcludeFile()
	require.NoError(t, err)
	require.Equal(t, filepath.Join(r.CommonDir, "info", "exclude"), path)

	// The same file is seen from a linked worktree.
	wt := filepath.Join(tmp(t), "wt")
	require.NoError(t, r.AddWorktree(wt, "owt/x", "main"))
	rw, err := FindRepo(wt)
	require.NoError(t, err)
	pw, err := rw.ExcludeFile()
	require.NoError(t, err)
	require.Equal(t, path, pw)

	// Existing content without a final newline, and a pattern already there.
	existing := "# user stuff\r\n*.swp\r\n.claude/settings.local.json"
	write(t, path, existing)
	added, err := r.AddExcludes(".claude/settings.local.json", ".owt/", "", ".owt/")
	require.NoError(t, err)
	require.Equal(t, []string{".owt/"}, added, "only what was not there yet")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, existing+"\n# owt\n.owt/\n", string(data))

	added, err = r.AddExcludes(".owt/", "*.swp")
	require.NoError(t, err)
	require.Empty(t, added)
	data2, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(data), string(data2), "idempotent")

	_, err = rw.AddExcludes("AGENTS.owt.md")
	require.NoError(t, err)
	data3, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, string(data)+"AGENTS.owt.md\n", string(data3), "header written once")

	_, err = r.AddExcludes("a\nb")
	require.Error(t, err)

	// The patterns work in the worktree.
	write(t, filepath.Join(wt, ".owt", "x"), "x")
	files, err := DirtyFiles(wt)
	require.NoError(t, err)
	require.Empty(t, files)
}

func TestAddExcludesCreatesFile(t *testing.T) {
	t.Parallel()
	_, r := newRepo(t)
	require.NoError(t, os.RemoveAll(filepath.Join(r.CommonDir, "info")))
	_, err := r.AddExcludes("a", "b")
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(r.CommonDir, "info", "exclude"))
	require.NoError(t, err)
	require.Equal(t, "# owt\na\nb\n", string(data))
}

func TestUnversionedFiles(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	commitFile(t, dir, ".gitignore", ".env\nnode_modules/\n*.log\n", "ignore")
	write(t, filepath.Join(dir, ".env"), "SECRET=1\n")                           // ignored
	write(t, filepath.Join(dir, "apps", "web", ".env.local"), "X=1\n")           // untracked
	write(t, filepath.Join(dir, "node_modules", "pkg", "index.js"), "x\n")       // ignored dir
	write(t, filepath.Join(dir, "apps", "web", "node_modules", "p", "i.js"), "") // nested ignored dir
	write(t, filepath.Join(dir, "logs", "a.log"), "x\n")                         // dir of only ignored files
	write(t, filepath.Join(dir, "a.txt"), "tracked change\n")                    // tracked: not listed

	files, err := r.UnversionedFiles()
	require.NoError(t, err)
	require.Equal(t, []string{".env", "logs/a.log"}, files.Ignored)
	require.Equal(t, []string{"apps/web/.env.local"}, files.Untracked)

	// From a linked worktree's Repo it still lists the main checkout.
	wt := filepath.Join(tmp(t), "wt")
	require.NoError(t, r.AddWorktree(wt, "owt/u", "main"))
	rw, err := FindRepo(wt)
	require.NoError(t, err)
	files2, err := rw.UnversionedFiles()
	require.NoError(t, err)
	require.Equal(t, files, files2)
}

func TestLastCommitTime(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	write(t, filepath.Join(dir, "t.txt"), "t\n")
	g(t, dir, "add", "t.txt")
	cmd := exec.Command("git", "-C", dir, "commit", "-q", "-m", "dated")
	cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2021-02-03T04:05:06Z")
	require.NoError(t, cmd.Run())

	ts, err := r.LastCommitTime("main")
	require.NoError(t, err)
	require.True(t, ts.Equal(time.Date(2021, 2, 3, 4, 5, 6, 0, time.UTC)), ts)

	_, err = r.LastCommitTime("nope")
	require.Error(t, err)
}

func TestRunErrorCarriesStderr(t *testing.T) {
	t.Parallel()
	_, err := run(tmp(t), "rev-parse", "--show-toplevel")
	require.Error(t, err)
	require.Contains(t, err.Error(), "not a git repository")
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee))
	require.Equal(t, 128, exitCode(err))
}

func TestEnvIsScrubbed(t *testing.T) {
	// Not parallel: it changes the process environment.
	dir, _ := newRepo(t)
	t.Setenv("GIT_DIR", filepath.Join(tmp(t), "elsewhere"))
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	top, err := TopLevel(dir)
	require.NoError(t, err)
	require.Equal(t, dir, top)
	e := env()
	require.Contains(t, e, "LC_ALL=C")
	require.Contains(t, e, "GIT_TERMINAL_PROMPT=0")
	require.NotContains(t, e, "LC_ALL=de_DE.UTF-8")
}

func TestBranches(t *testing.T) {
	t.Parallel()
	dir, repo := newRepo(t)
	g(t, dir, "branch", "feat/a")
	g(t, dir, "branch", "fix/b")
	set, err := repo.Branches()
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"main": true, "feat/a": true, "fix/b": true}, set)
}

func TestFindRepoHeadBranchDetachedAndUnborn(t *testing.T) {
	t.Parallel()
	dir, _ := newRepo(t)
	g(t, dir, "checkout", "-q", "--detach")
	r, err := FindRepo(dir)
	require.NoError(t, err)
	require.Equal(t, "", r.HeadBranch)

	unborn := filepath.Join(tmp(t), "unborn")
	require.NoError(t, os.Mkdir(unborn, 0o755))
	g(t, unborn, "init", "-q", "-b", "trunk")
	r, err = FindRepo(unborn)
	require.NoError(t, err)
	require.Equal(t, unborn, r.Root)
	require.Equal(t, "", r.HeadBranch)
}

// FindRepoAndNames answers in one call what FindRepo and NamesInUse do in
// two: from the main checkout, a folder in it, a linked worktree, on a
// detached HEAD and in a repository with no commit yet; every kind of ref
// (a symbolic remote HEAD by its own name, tags, the stash).
func TestFindRepoAndNamesIsFindRepoAndNamesInUse(t *testing.T) {
	dir, _ := newRepo(t)
	g(t, dir, "tag", "v1")
	g(t, dir, "tag", "-a", "v2", "-m", "annotated")
	g(t, dir, "branch", "feat/x")
	g(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD")
	g(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	write(t, filepath.Join(dir, "a.txt"), "changed\n")
	g(t, dir, "stash", "-q")
	linked := filepath.Join(filepath.Dir(dir), "linked")
	g(t, dir, "worktree", "add", "-q", "-b", "other", linked)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	detached := filepath.Join(filepath.Dir(dir), "detached")
	g(t, dir, "worktree", "add", "-q", "--detach", detached)
	unborn := filepath.Join(filepath.Dir(dir), "unborn")
	g(t, filepath.Dir(dir), "init", "-q", "-b", "main", unborn)

	for _, at := range []string{dir, filepath.Join(dir, "sub"), linked, detached, unborn} {
		want, err := FindRepo(at)
		require.NoError(t, err)
		wantNames, err := want.NamesInUse()
		require.NoError(t, err)
		got, err := FindRepoAndNames(at)
		require.NoError(t, err, at)
		require.Equal(t, want, got.Repo, at)
		if at == unborn {
			require.Empty(t, got.Names)
			require.Empty(t, got.HeadCommit)
			continue
		}
		require.Equal(t, wantNames, got.Names, at)
		require.Equal(t, "refs/remotes/origin/HEAD", got.Names["origin"], "a remote's HEAD is read as the remote's name")
		require.Equal(t, g(t, at, "rev-parse", "HEAD"), got.HeadCommit, at)
	}
	g(t, linked, "commit", "-q", "--allow-empty", "-m", "on other")
	got, err := FindRepoAndNames(linked)
	require.NoError(t, err)
	require.Equal(t, g(t, linked, "rev-parse", "refs/heads/other"), got.HeadCommit, "the HEAD of the worktree asked in")
	require.NotEqual(t, g(t, dir, "rev-parse", "HEAD"), got.HeadCommit)
	_, err = FindRepoAndNames(t.TempDir())
	require.ErrorIs(t, err, ErrNotRepo)

	// A ref called HEAD makes git print no name for HEAD: FindRepo
	// refuses such a repository, and so does this, rather than take the
	// first ref for HEAD's branch.
	g(t, dir, "branch", "aaa")
	g(t, dir, "update-ref", "refs/tags/HEAD", "HEAD")
	_, wantErr := FindRepo(dir)
	require.Error(t, wantErr)
	_, err = FindRepoAndNames(dir)
	require.Error(t, err)
}

func TestDefaultBranch(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	require.Equal(t, "main", r.DefaultBranch(), "main, with no origin")
	g(t, dir, "branch", "-m", "main", "trunk")
	require.Equal(t, "", r.DefaultBranch(), "no main, master, origin/HEAD or init.defaultBranch")
	g(t, dir, "config", "init.defaultBranch", "trunk")
	require.Equal(t, "trunk", r.DefaultBranch())
	g(t, dir, "branch", "develop")
	g(t, dir, "update-ref", "refs/remotes/origin/develop", "HEAD")
	g(t, dir, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/develop")
	require.Equal(t, "develop", r.DefaultBranch(), "origin/HEAD first")
}
