package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckReportsWorkOverlapsAndConflicts(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.commitIn(repo, "shared.txt", "base\n", "shared")
	a := e.shell(repo, "a")
	b := e.shell(repo, "b")
	c := e.shell(repo, "c")

	rep := e.check(repo, "a")
	require.True(t, rep.Empty)
	require.Equal(t, "main", rep.Base)
	require.Empty(t, rep.DirtyFiles)
	require.Empty(t, rep.Overlaps)
	require.Empty(t, rep.Conflicts)

	e.commitIn(a.Path, "shared.txt", "from a\n", "a edits shared")
	e.commitIn(a.Path, "a.txt", "a\n", "a adds")
	e.commitIn(b.Path, "shared.txt", "from b\n", "b edits shared")
	e.WriteFile(c.Path, "a.txt", "c too, uncommitted\n")
	e.commitIn(repo, "shared.txt", "main moved\n", "main edits shared")

	rep = e.check(repo, "a")
	require.False(t, rep.Empty)
	require.Equal(t, 2, rep.Ahead)
	require.Equal(t, 1, rep.Behind)
	require.ElementsMatch(t, []overlap{
		{With: "b", Kind: "worktree", Files: []string{"shared.txt"}},
		{With: "c", Kind: "worktree", Files: []string{"a.txt"}},
	}, rep.Overlaps, "overlaps count committed and uncommitted changes")
	require.ElementsMatch(t, []overlap{
		{With: "main", Kind: "base", Files: []string{"shared.txt"}},
		{With: "b", Kind: "worktree", Files: []string{"shared.txt"}},
	}, rep.Conflicts)

	rep = e.check(repo, "c")
	require.Equal(t, []string{"a.txt"}, rep.DirtyFiles)
	require.False(t, rep.Empty)

	text := e.MustOwt(repo, "check", "a")
	require.Contains(t, text, "2 ahead, 1 behind main")
	require.Contains(t, text, "conflicts:   with main: shared.txt")
}

func TestMergeIntoCleanCheckoutOfTargetKeepsIgnoredFiles(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	w := e.shell(repo, "feature")
	e.commitIn(w.Path, "src/feature.go", "package src\n", "add feature")
	e.commitIn(repo, "other.txt", "main moved on\n", "main work")
	oldMain := e.Git(repo, "rev-parse", "main")

	out := e.MustOwt(repo, "merge", "feature", "--yes")
	require.Contains(t, out, "merged feat/feature into main (merge)")
	require.Contains(t, out, "checkout "+repo+" updated")

	// A real merge commit on main, in the user's checkout, files and all.
	require.Equal(t, oldMain, e.Git(repo, "rev-parse", "main^1"))
	require.Equal(t, "Merge branch 'feat/feature' into main", e.Git(repo, "log", "-1", "--format=%s", "main"))
	require.FileExists(t, filepath.Join(repo, "src", "feature.go"))
	require.Empty(t, e.Git(repo, "status", "--porcelain"), "the checkout is clean and up to date")
	e.requireUserFiles(repo, "merge")
	e.requireGone(repo, w)
}

func TestMergeFastForwardsWhenTargetDidNotMove(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	w := e.shell(repo, "ff")
	tip := e.commitIn(w.Path, "f.txt", "f\n", "f")
	r := e.Owt(repo, "merge", "ff", "--yes", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var res struct {
		Method, Commit, Target string
		Removed                bool
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res), r.Stdout)
	require.Equal(t, "fast-forward", res.Method)
	require.Equal(t, tip, res.Commit)
	require.True(t, res.Removed)
	require.Equal(t, tip, e.Git(repo, "rev-parse", "main"))
}

func TestMergeRefusesDirtyCheckoutOfTargetAndLeavesItByteIdentical(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	w := e.shell(repo, "feature")
	e.commitIn(w.Path, "f.txt", "f\n", "feature")
	e.WriteFile(repo, "README.md", "# edited by the user, not committed\n")
	e.WriteFile(repo, "scratch.txt", "untracked notes\n")
	before := digest(t, repo)
	mainBefore := e.Git(repo, "rev-parse", "main")
	wtBefore := digest(t, w.Path)

	r := e.Owt(repo, "merge", "feature", "--yes")
	requireOneLineError(t, r, "main is checked out in "+repo+" with uncommitted changes: README.md")
	require.Equal(t, before, digest(t, repo), "the user's checkout is byte-identical")
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"))
	require.Equal(t, wtBefore, digest(t, w.Path))
	e.requireKept(repo, w)

	// A staged change is refused the same way.
	e.Git(repo, "add", "README.md")
	before = digest(t, repo)
	r = e.Owt(repo, "merge", "feature", "--yes")
	requireOneLineError(t, r, "README.md")
	require.Equal(t, before, digest(t, repo))
}

func TestMergeNeverWritesOverIgnoredFilesInTheCheckout(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	w := e.shell(repo, "logs")
	// The agent force-adds a file the user's checkout has as an ignored
	// file: git itself would overwrite it in a merge there.
	e.WriteFile(w.Path, "app.log", "the agent's log\n")
	e.Git(w.Path, "add", "-f", "app.log")
	e.Git(w.Path, "commit", "-q", "-m", "track a log")
	before := digest(t, repo)
	r := e.Owt(repo, "merge", "logs", "--yes")
	requireOneLineError(t, r, "untracked or ignored files where the merge adds files: app.log")
	require.Equal(t, before, digest(t, repo))
	e.requireUserFiles(repo, "refused merge")
	e.requireKept(repo, w)

	// The same branch lands fine where main is checked out nowhere.
	e.Git(repo, "checkout", "-q", "-b", "elsewhere")
	e.MustOwt(repo, "merge", "logs", "--yes")
	require.Equal(t, "the agent's log", e.Git(repo, "show", "main:app.log"))
	e.requireUserFiles(repo, "merge by ref")
}

func TestMergeConflictChangesNothingAnywhere(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	e.commitIn(repo, "shared.txt", "base\n", "shared")
	w := e.shell(repo, "clash")
	e.commitIn(w.Path, "shared.txt", "from the agent\n", "agent edits")
	e.commitIn(repo, "shared.txt", "from the user\n", "user edits")
	mainBefore := e.Git(repo, "rev-parse", "main")
	branchBefore := e.Git(repo, "rev-parse", w.Branch)
	repoBefore, wtBefore := digest(t, repo), digest(t, w.Path)

	for _, extra := range [][]string{nil, {"--squash"}, {"--rebase"}} {
		r := e.Owt(repo, append([]string{"merge", "clash", "--yes"}, extra...)...)
		requireOneLineError(t, r, "feat/clash conflicts with main in shared.txt")
		require.Contains(t, r.Stderr, "nothing was changed")
		require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"), "%v: target ref unchanged", extra)
		require.Equal(t, branchBefore, e.Git(repo, "rev-parse", w.Branch), "%v: branch unchanged", extra)
		require.Equal(t, repoBefore, digest(t, repo), "%v: user's checkout unchanged", extra)
		require.Equal(t, wtBefore, digest(t, w.Path), "%v: worktree unchanged", extra)
		e.requireKept(repo, w)
	}

	// --leave-conflicts: the target merged into the branch in the agent's
	// worktree, markers there; the target and the user's checkout untouched.
	r := e.Owt(repo, "merge", "clash", "--yes", "--leave-conflicts")
	requireOneLineError(t, r, "conflicts are left in "+w.Path)
	data, err := os.ReadFile(filepath.Join(w.Path, "shared.txt"))
	require.NoError(t, err)
	require.Contains(t, string(data), "<<<<<<<")
	require.Contains(t, string(data), "from the user")
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"))
	require.Equal(t, repoBefore, digest(t, repo))
	e.requireKept(repo, w)

	// Resolved and committed there, the merge goes through.
	r = e.Owt(repo, "merge", "clash", "--yes")
	requireOneLineError(t, r, "uncommitted")
	e.WriteFile(w.Path, "shared.txt", "both\n")
	e.Git(w.Path, "commit", "-q", "-am", "resolve")
	e.MustOwt(repo, "merge", "clash", "--yes")
	data, _ = os.ReadFile(filepath.Join(repo, "shared.txt"))
	require.Equal(t, "both\n", string(data))
	e.requireUserFiles(repo, "merge after resolving")
	e.requireGone(repo, w)
}

func TestMergeIntoBranchCheckedOutNowhere(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	e.Git(repo, "branch", "release")
	w := e.shell(repo, "fix", "--base", "release")
	tip := e.commitIn(w.Path, "fix.txt", "fixed\n", "the fix")
	// release moves on meanwhile, so this is a real merge, not a fast-forward.
	e.Git(repo, "checkout", "-q", "release")
	e.commitIn(repo, "release-notes.txt", "1.0\n", "release notes")
	e.Git(repo, "checkout", "-q", "main")
	e.WriteFile(repo, "README.md", "# the user is busy on main\n")
	releaseBefore := e.Git(repo, "rev-parse", "release")
	repoBefore := digest(t, repo)

	out := e.MustOwt(repo, "merge", "fix", "--yes")
	require.Contains(t, out, "branch updated, no checkout touched")
	require.Equal(t, releaseBefore, e.Git(repo, "rev-parse", "release^1"))
	require.Equal(t, tip, e.Git(repo, "rev-parse", "release^2"))
	require.Equal(t, "fixed", e.Git(repo, "show", "release:fix.txt"))
	require.Equal(t, "1.0", e.Git(repo, "show", "release:release-notes.txt"))
	require.Contains(t, e.Git(repo, "reflog", "-1", "release"), "owt merge fix")
	require.Equal(t, repoBefore, digest(t, repo), "the user's checkout (on main, dirty) untouched")
	e.requireGone(repo, w)
}

func TestMergeIntoBranchCheckedOutInAnotherWorktree(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	other := filepath.Join(e.Root, "app-develop")
	e.Git(repo, "worktree", "add", "-q", "-b", "develop", other)
	e.withUserFiles(other)
	w := e.shell(repo, "feature", "--base", "develop")
	e.commitIn(w.Path, "f.txt", "f\n", "feature")
	e.commitIn(other, "d.txt", "d\n", "develop moves")

	// Dirty there: refused, byte-identical.
	e.WriteFile(other, "d.txt", "being edited\n")
	before := digest(t, other)
	r := e.Owt(repo, "merge", "feature", "--yes")
	requireOneLineError(t, r, "develop is checked out in "+other+" with uncommitted changes: d.txt")
	require.Equal(t, before, digest(t, other))
	e.requireKept(repo, w)

	// Clean there: merged in that checkout.
	e.Git(other, "checkout", "--", "d.txt")
	out := e.MustOwt(repo, "merge", "feature", "--yes")
	require.Contains(t, out, "checkout "+other+" updated")
	require.FileExists(t, filepath.Join(other, "f.txt"))
	require.Empty(t, e.Git(other, "status", "--porcelain"))
	e.requireUserFiles(other, "merge into another worktree")
	e.requireGone(repo, w)
}

func TestMergeRefusesUncommittedWorkAndPointsAtShip(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	w := e.shell(repo, "wip")
	e.commitIn(w.Path, "done.txt", "done\n", "done part")
	e.WriteFile(w.Path, "wip.txt", "half done\n")
	before := e.snapshot(repo)
	r := e.Owt(repo, "merge", "wip", "--yes")
	requireOneLineError(t, r, "wip has uncommitted changes in 1 file(s): wip.txt")
	require.Contains(t, r.Stderr, "owt ship wip")
	require.Equal(t, before, e.snapshot(repo))

	// An empty branch has nothing to merge.
	e.shell(repo, "empty")
	r = e.Owt(repo, "merge", "empty", "--yes")
	requireOneLineError(t, r, "nothing to merge")
}

func TestMergeSquashRebaseAndStrategy(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.commitIn(repo, "shared.txt", "one\ntwo\nthree\n", "shared")

	sq := e.shell(repo, "sq")
	e.commitIn(sq.Path, "s1.txt", "1\n", "first")
	e.commitIn(sq.Path, "s2.txt", "2\n", "second")
	e.commitIn(repo, "m.txt", "m\n", "main moves")
	old := e.Git(repo, "rev-parse", "main")
	e.MustOwt(repo, "merge", "sq", "--squash", "--yes")
	require.Equal(t, old, e.Git(repo, "rev-parse", "main^"), "one commit, one parent")
	body := e.Git(repo, "log", "-1", "--format=%B", "main")
	require.Contains(t, body, "Work on sq")
	require.Contains(t, body, "* first\n* second")
	require.FileExists(t, filepath.Join(repo, "s2.txt"))
	e.requireGone(repo, sq)

	rb := e.shell(repo, "rb")
	e.commitIn(rb.Path, "r.txt", "r\n", "rebased work")
	e.commitIn(repo, "m2.txt", "m2\n", "main moves again")
	old = e.Git(repo, "rev-parse", "main")
	e.MustOwt(repo, "merge", "rb", "--rebase", "--yes")
	require.Equal(t, old, e.Git(repo, "rev-parse", "main^"), "linear: the rebased commit sits on the old main")
	require.Equal(t, "rebased work", e.Git(repo, "log", "-1", "--format=%s", "main"))
	e.requireGone(repo, rb)

	th := e.shell(repo, "theirs")
	e.commitIn(th.Path, "shared.txt", "ONE (agent)\ntwo\nthree\n", "agent side")
	e.commitIn(repo, "shared.txt", "ONE (user)\ntwo\nthree (user)\n", "user side")
	r := e.Owt(repo, "merge", "theirs", "--yes")
	requireOneLineError(t, r, "conflicts")
	e.MustOwt(repo, "merge", "theirs", "--strategy", "theirs", "--yes")
	data, _ := os.ReadFile(filepath.Join(repo, "shared.txt"))
	require.Equal(t, "ONE (agent)\ntwo\nthree (user)\n", string(data), "conflicting hunk from the branch, the rest merged")
	e.requireGone(repo, th)
}

func TestMergeKeepAndInto(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Git(repo, "branch", "staging")
	w := e.shell(repo, "k")
	tip := e.commitIn(w.Path, "k.txt", "k\n", "k")
	e.MustOwt(repo, "merge", "k", "--into", "staging", "--keep", "--yes")
	require.Equal(t, tip, e.Git(repo, "rev-parse", "staging"))
	require.NotEqual(t, tip, e.Git(repo, "rev-parse", "main"))
	e.requireKept(repo, w)

	// Merged into staging only: a later merge into main still has work to do.
	e.MustOwt(repo, "merge", "k", "--yes")
	require.Equal(t, tip, e.Git(repo, "rev-parse", "main"))
	e.requireGone(repo, w)
}

func TestMergeBadInputChangesNothing(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	w := e.shell(repo, "w")
	e.commitIn(w.Path, "w.txt", "w\n", "w")
	before := e.snapshot(repo)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"merge"}, 2, "merge takes one NAME"},
		{[]string{"merge", "w", "--rebase", "--squash"}, 2, "cannot be used together"},
		{[]string{"merge", "w", "--strategy", "recursive"}, 2, "--strategy"},
		{[]string{"merge", "nope", "--yes"}, 3, "no such worktree"},
		{[]string{"merge", "w", "--into", "no-such-branch", "--yes"}, 1, "no branch \"no-such-branch\""},
		{[]string{"merge", "w", "--into", "feat/w", "--yes"}, 1, "into itself"},
		{[]string{"check", "nope"}, 3, "no such worktree"},
		{[]string{"ship"}, 2, "ship takes one NAME"},
		{[]string{"queue", "extra"}, 2, "no arguments"},
		{[]string{"cleanup", "--stale", "-1"}, 2, "--stale"},
		{[]string{"cleanup", "--force"}, 2, "--force only goes with --stale"},
		{[]string{"sync"}, 2, "sync takes one NAME"},
		{[]string{"sync", "w", "--all"}, 2, "sync takes one NAME"},
		{[]string{"note", "--clear", "text"}, 2, "--clear takes no TEXT"},
		{[]string{"note", "  "}, 2, "empty"},
		{[]string{"note", "has <!-- owt:note end --> inside"}, 2, "markers"},
		{[]string{"doctor", "x"}, 2, "no arguments"},
	} {
		r := e.Owt(repo, c.args...)
		require.Equal(t, c.code, r.Code, "%v: %s", c.args, r.Stderr)
		requireOneLineError(t, r, c.msg)
		require.Equal(t, before, e.snapshot(repo), "%v changed something", c.args)
	}
	require.NoFileExists(t, filepath.Join(w.Path, "CLAUDE.local.md"))
	require.False(t, strings.Contains(e.Git(repo, "log", "--all", "--format=%s"), "Merge"))
}

func TestMergeShipAndSyncRefuseAWorktreeWhoseHEADIsOffItsBranch(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	w := e.shell(repo, "rb")
	e.commitIn(w.Path, "r.txt", "r\n", "agent work")
	e.Git(w.Path, "checkout", "-q", "--detach")
	// main gains a commit, then is checked out nowhere.
	e.commitIn(repo, "m.txt", "m\n", "main moves on")
	e.Git(repo, "checkout", "-q", "-b", "elsewhere")
	mainBefore := e.Git(repo, "rev-parse", "main")
	branchBefore := e.Git(repo, "rev-parse", w.Branch)
	wtBefore := digest(t, w.Path)

	want := "HEAD in " + w.Path + " is not on feat/rb; check it out first"
	for _, args := range [][]string{
		{"merge", "rb", "--rebase", "--yes"},
		{"merge", "rb", "--yes"},
		{"merge", "rb", "--squash", "--yes"},
		{"ship", "rb", "--yes"},
		{"sync", "rb", "--rebase"},
		{"sync", "rb"},
	} {
		r := e.Owt(repo, args...)
		requireOneLineError(t, r, want)
		require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"), "%v: main keeps its commits", args)
		require.Equal(t, branchBefore, e.Git(repo, "rev-parse", w.Branch), "%v", args)
		require.Equal(t, wtBefore, digest(t, w.Path), "%v: worktree unchanged", args)
		e.requireKept(repo, w)
	}
	require.Contains(t, e.MustOwt(repo, "check", "rb"), "HEAD in its worktree is not on feat/rb")

	// Back on its branch, the rebase merge lands on top of main.
	e.Git(w.Path, "checkout", "-q", w.Branch)
	e.MustOwt(repo, "merge", "rb", "--rebase", "--yes")
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main^"), "main's commit is kept under the rebased one")
	require.Equal(t, "m", e.Git(repo, "show", "main:m.txt"))
	require.Equal(t, "r", e.Git(repo, "show", "main:r.txt"))
	e.requireGone(repo, w)
}
