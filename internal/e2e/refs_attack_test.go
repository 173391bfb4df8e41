package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

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

// interruptCreate starts owt new for name and kills it, and every git it
// ran, with SIGKILL once block (a shell snippet git runs during the
// checkout, from a hook or a filter) has begun.
func (e *Env) interruptCreate(repo, name, marker string) string {
	e.t.Helper()
	cmd := exec.Command(owtBin, "new", "--no-agent", "--no-setup", "--name", name, "interrupted")
	cmd.Dir = repo
	cmd.Env = e.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(e.t, cmd.Start())
	e.t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	e.Eventually(20*time.Second, "owt new reaches git's checkout", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
	require.NoError(e.t, syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL))
	_ = cmd.Wait()
	e.Eventually(10*time.Second, "git gone", func() bool { return syscall.Kill(-cmd.Process.Pid, 0) != nil })
	return filepath.Join(filepath.Dir(repo), filepath.Base(repo)+".worktrees", name)
}

func interruptedFinding(t *testing.T, out string) (action string, fixed bool) {
	t.Helper()
	for _, f := range doctorJSON(t, out).Findings {
		if f.Kind == "interrupted-create" {
			return f.Action, f.Fixed
		}
	}
	t.Fatalf("no interrupted-create finding: %s", out)
	return "", false
}

// A git the user runs in the worktree (a pager on git log) is not the
// checkout: doctor names the user's files, not "git is still at work".
func TestDoctorTellsTheUsersGitFromTheCheckout(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	marker := filepath.Join(e.Root, "in-checkout")
	hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ntouch '"+marker+"'\nexec sleep 120\n"), 0o755))
	wt := e.interruptCreate(repo, "big", marker)
	require.NoError(t, os.Remove(hook))

	// The user's own git, still running in the worktree.
	user := exec.Command("git", "-C", wt, "cat-file", "--batch")
	stdin, err := user.StdinPipe()
	require.NoError(t, err)
	require.NoError(t, user.Start())
	t.Cleanup(func() { _ = stdin.Close(); _ = user.Process.Kill(); _ = user.Wait() })
	e.WriteFile(wt, "mine.txt", "my notes\n")

	r := e.Owt(repo, "doctor", "--fix", "--json")
	action, fixed := interruptedFinding(t, r.Stdout)
	require.False(t, fixed)
	require.NotContains(t, action, "git is still at work", action)
	require.Contains(t, action, "1 file(s) someone wrote since (mine.txt)", action)
	require.FileExists(t, filepath.Join(wt, "mine.txt"))
}

// Files of a checkout git never finished (git killed mid-checkout) are
// git's, not someone's: doctor --fix undoes the create; a file beyond the
// checked-out tree is still someone's and keeps it.
func TestDoctorKnowsFilesOfAnUnfinishedCheckoutAreGits(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	for i := 0; i < 50; i++ {
		e.WriteFile(repo, fmt.Sprintf("src/f%02d.go", i), "package src\n")
	}
	e.WriteFile(repo, ".gitattributes", "zz-last.txt filter=slow\n")
	e.WriteFile(repo, "zz-last.txt", "last\n")
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "many files")
	marker := filepath.Join(e.Root, "in-checkout")
	// git runs the smudge filter of the last file mid-checkout: hold it there.
	e.Git(repo, "config", "filter.slow.smudge", "touch '"+marker+"'; exec sleep 120")
	wt := e.interruptCreate(repo, "half", marker)
	e.Git(repo, "config", "--unset", "filter.slow.smudge")
	require.FileExists(t, filepath.Join(wt, "src", "f00.go"), "git wrote part of the tree")

	r := e.Owt(repo, "doctor", "--json")
	action, _ := interruptedFinding(t, r.Stdout)
	require.NotContains(t, action, "someone wrote", action)
	require.NotContains(t, action, "git is still at work", action)

	e.WriteFile(wt, "notes.txt", "mine\n")
	r = e.Owt(repo, "doctor", "--fix", "--json")
	action, fixed := interruptedFinding(t, r.Stdout)
	require.False(t, fixed)
	require.Contains(t, action, "1 file(s) someone wrote since (notes.txt)", action)

	require.NoError(t, os.Remove(filepath.Join(wt, "notes.txt")))
	r = e.Owt(repo, "doctor", "--fix", "--json")
	action, fixed = interruptedFinding(t, r.Stdout)
	require.True(t, fixed, action)
	require.NoDirExists(t, wt)
}

// The smaller truths: names without escape fragments, a note shown inert,
// a clear that says it removed nothing, a shell not called an agent, work
// landed elsewhere not called lost, flags named as typed, the branch
// blamed for being in use.
func TestOddTextAndSmallTruths(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")

	r := e.Owt(repo, "note", "--clear")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "no note was set: nothing to remove")
	e.MustOwt(repo, "note", "use \x1b[2Jtabs\x07 please\r!")
	shown := e.MustOwt(repo, "note")
	require.NotContains(t, shown, "\x1b")
	require.NotContains(t, shown, "\x07")
	require.NotContains(t, shown, "\r")
	require.Contains(t, shown, `use \x1b[2Jtabs\a please\r!`)

	out := e.MustOwt(repo, "new", "--json", "--no-agent", "--no-setup", "fix \x1b]0;pwn\x07 login bug\x1b[2J")
	require.Contains(t, out, `"name": "login-bug"`, out)

	sh := e.shell(repo, "sh")
	out = e.MustOwt(repo, "check", "sh")
	require.NotContains(t, out, "agent idle", out)
	require.Contains(t, out, "a shell (no agent)", out)

	r = e.Owt(repo, "new", "--no-agent", "-- -- --")
	requireOneLineError(t, r, "flag provided but not defined: -- -- --")
	require.Equal(t, 2, r.Code)

	r = e.Owt(repo, "new", "--no-agent", "--no-setup", "--branch", "main", "br test")
	requireOneLineError(t, r, `branch "main" already exists`)
	require.NotContains(t, r.Stderr, "name ")

	// Landed in main with --into after its base was deleted: not lost.
	e.Git(repo, "branch", "dev", "main")
	dv := e.shell(repo, "dv", "--base", "dev")
	e.commitIn(dv.Path, "dv.txt", "dv\n", "dv work")
	e.Git(repo, "branch", "-D", "dev")
	e.MustOwt(repo, "merge", "dv", "--into", "main", "--keep", "--yes")
	r = e.Owt(repo, "delete", "dv")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stderr, "would lose work")
	require.Contains(t, e.Git(repo, "log", "--format=%s", "main"), "dv work")
	_ = sh
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
