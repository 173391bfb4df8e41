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

// owt new killed while git still checks out a large tree: what git writes
// is git's, not the user's; doctor says git is at work there and --fix
// leaves it alone. Once git is gone, the files doctor lists are bounded:
// the first few and how many more, never one line with every file.
func TestDoctorAfterAnInterruptedCheckoutIsBoundedAndLeavesGitAlone(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	// git runs post-checkout inside "git worktree add": hold git there,
	// as a long checkout would.
	marker := filepath.Join(e.Root, "in-checkout")
	hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ntouch '"+marker+"'\nexec sleep 120\n"), 0o755))
	cmd := exec.Command(owtBin, "new", "--no-setup", "--name", "big", "a large checkout")
	cmd.Dir = repo
	cmd.Env = e.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	e.Eventually(10*time.Second, "owt new reaches git's checkout", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})
	// owt new dies; git goes on writing the tree.
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", "big")
	for i := 0; i < 3000; i++ {
		e.WriteFile(wt, fmt.Sprintf("src/file%04d.go", i), "package src\n")
	}

	r := e.Owt(repo, "doctor", "--fix", "--json")
	require.Equal(t, 1, r.Code, r.Stderr)
	var found string
	for _, f := range doctorJSON(t, r.Stdout).Findings {
		if f.Kind == "interrupted-create" {
			require.False(t, f.Fixed)
			found = f.Action
		}
	}
	require.Contains(t, found, "git is still at work in it", r.Stdout)
	require.NotContains(t, found, "file0001", "git's files are not listed as someone's")
	require.DirExists(t, wt)

	// git ends (killed here); the files are someone's now: a bounded list.
	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL))
	e.Eventually(10*time.Second, "git gone", func() bool { return syscall.Kill(-cmd.Process.Pid, 0) != nil })
	r = e.Owt(repo, "doctor")
	require.Equal(t, 1, r.Code, r.Stderr)
	for _, l := range strings.Split(r.Stdout, "\n") {
		require.Less(t, len(l), 400, "one bounded line: %.500s", l)
	}
	require.Contains(t, r.Stdout, "src/file0000.go")
	require.Contains(t, r.Stdout, "and 2995 more")
	require.DirExists(t, wt)
}
