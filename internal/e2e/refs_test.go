package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A branch whose name is also a tag or refs/<name> holds commits all the
// same: check counts them, delete refuses to lose them, cleanup keeps them.
func TestBranchNamedLikeAnotherRefKeepsItsWork(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")

	// Made ambiguous after owt new accepted the names.
	tg := e.shell(repo, "tg", "--branch", "tgb")
	e.commitIn(tg.Path, "t.txt", "work\n", "work on tg")
	e.Git(repo, "tag", "tgb", "main")
	rf := e.shell(repo, "rf", "--branch", "wip/rf")
	e.commitIn(rf.Path, "r.txt", "work\n", "work on rf")
	e.Git(repo, "update-ref", "refs/wip/rf", "main")

	for _, it := range []Item{tg, rf} {
		out := e.MustOwt(repo, "check", it.Name)
		require.Contains(t, out, "1 ahead, 0 behind main", out)
		require.NotContains(t, out, "empty", out)

		r := e.Owt(repo, "delete", it.Name)
		require.NotEqual(t, 0, r.Code, "delete must refuse: %s", r.Stdout)
		require.Contains(t, r.Stderr, "would lose work")
		require.NotContains(t, r.Stdout, "deleted")
		require.Equal(t, "refs/heads/"+it.Branch, e.Git(repo, "branch", "--list", it.Branch, "--format=%(refname)"))
	}
	out := e.MustOwt(repo, "cleanup", "--stale", "0", "--dry-run")
	require.NotContains(t, out, "would remove tg", out)
	require.NotContains(t, out, "would remove rf", out)
}

// owt new refuses a --branch git would read as another ref, and starts a
// worktree from the base branch, not a tag of the same name.
func TestNewRefusesAmbiguousBranchAndStartsFromTheBranch(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Git(repo, "tag", "release", "main")
	e.Git(repo, "update-ref", "refs/remotes/origin/main", "main")
	e.shell(repo, "keep")
	before := e.snapshot(repo)
	for _, c := range []struct{ branch, says string }{
		{"release", "ambiguous branch name"},
		{"origin/main", "ambiguous branch name"},
		{"refs/remotes/origin/main", "refs/"},
		{"refs/heads/x", "refs/"},
	} {
		r := e.Owt(repo, "new", "--no-agent", "--no-setup", "--name", "tg", "--branch", c.branch, "x")
		requireOneLineError(t, r, c.says)
		require.Equal(t, 2, r.Code, r.Stderr)
		require.Equal(t, before, e.snapshot(repo), "nothing changed")
	}

	// A tag named like the base branch, at an older commit.
	e.Git(repo, "tag", "main", "main")
	e.commitIn(repo, "new.txt", "newer\n", "newer main")
	it := e.shell(repo, "fresh")
	require.Equal(t, e.Git(repo, "rev-parse", "refs/heads/main"), e.Git(it.Path, "rev-parse", "HEAD"))
}

// The base is a local branch: owt new refuses anything else, so check and
// merge never meet a base that "no longer exists" because it never was one.
func TestNewBaseMustBeALocalBranch(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.commitIn(repo, "two.txt", "2\n", "two")
	e.Git(repo, "update-ref", "refs/remotes/origin/main", "main")
	sha := e.Git(repo, "rev-parse", "main")
	before := e.snapshot(repo)
	for _, base := range []string{"origin/main", "main~1", sha, "HEAD"} {
		r := e.Owt(repo, "new", "--no-agent", "--no-setup", "--base", base, "x")
		requireOneLineError(t, r, "is not a local branch")
		require.Equal(t, 2, r.Code, r.Stderr)
		require.Equal(t, before, e.snapshot(repo), "nothing changed")
	}
	r := e.Owt(repo, "new", "--no-agent", "--no-setup", "--base", "nope", "x")
	requireOneLineError(t, r, `unknown base "nope": no such branch`)
	require.Equal(t, 2, r.Code)

	it := e.shell(repo, "ok", "--base", "main")
	e.commitIn(it.Path, "w.txt", "w\n", "w")
	out := e.MustOwt(repo, "check", "ok")
	require.NotContains(t, out, "no longer exists", out)
	require.True(t, strings.Contains(out, "1 ahead, 0 behind main"), out)
}

// A conflict between two worktrees is one between their own changes: a
// worktree made later from a newer base carries the base's change to a
// file, and that is not its conflict with an older worktree.
func TestCheckConflictsAreBetweenTheBranchesOwnChanges(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.commitIn(repo, "c.txt", "base\n", "c")
	conf1 := e.shell(repo, "conf1")
	e.commitIn(conf1.Path, "c.txt", "conf1\n", "conf1 changes c")
	e.commitIn(repo, "c.txt", "main moved\n", "main changes c")

	conf3 := e.shell(repo, "conf3")
	e.commitIn(conf3.Path, "d.txt", "d\n", "conf3 adds d")
	conf4 := e.shell(repo, "conf4")
	e.commitIn(conf4.Path, "c.txt", "conf4\n", "conf4 changes c")

	out := e.MustOwt(repo, "check", "conf3")
	require.Contains(t, out, "overlaps:    none", out)
	require.Contains(t, out, "conflicts:   none predicted", out)

	// The real one is still found.
	out = e.MustOwt(repo, "check", "conf4")
	require.Contains(t, out, "conflicts:   with conf1: c.txt", out)
}

// A base branch replaced by a tag of the same name is not a branch: check
// says so in the words owt merge refuses with, not "no longer exists".
func TestCheckAndMergeAgreeOnABaseThatIsNotABranch(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Git(repo, "branch", "dev", "main")
	it := e.shell(repo, "w", "--base", "dev")
	e.commitIn(it.Path, "w.txt", "w\n", "w")
	e.Git(repo, "branch", "-D", "dev")
	e.Git(repo, "tag", "dev", "main")

	out := e.MustOwt(repo, "check", "w")
	require.Contains(t, out, "base:        dev is not a branch", out)
	require.Contains(t, out, `its base "dev" is not a branch; merge with --into BRANCH`, out)
	require.Contains(t, out, "1 ahead", out)
	r := e.Owt(repo, "merge", "w", "--yes")
	requireOneLineError(t, r, `base "dev" is not a branch; merge with --into BRANCH`)
}

// A derived branch name git would read as a tag is taken, like a branch.
func TestDerivedBranchNeverShadowsATag(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Git(repo, "tag", "feat/login", "main")
	out := e.MustOwt(repo, "new", "--json", "--no-agent", "--no-setup", "login")
	require.Contains(t, out, `"branch": "feat/login-2"`, out)
	r := e.Owt(repo, "new", "--no-agent", "--no-setup", "--name", "login", "login")
	requireOneLineError(t, r, "git would read branch feat/login as refs/tags/feat/login")
	require.Equal(t, 1, r.Code)
}
