package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 34, problem 5: owt doctor is a preflight. It checks what owt needs
// of the machine — tmux ≥ 3.2 and git ≥ 2.38 on PATH, owt's programs
// beside it, the configured tool, owt on the PATH tmux panes get — and a
// failed check says its fix and makes doctor exit 1. Before, tmux off PATH
// was "all good", exit 0.

type preflightOut struct {
	Checks []struct {
		Name, Detail, Fix string
		OK                bool
	}
}

func (p preflightOut) check(t *testing.T, name string) (ok bool, detail, fix string) {
	t.Helper()
	for _, c := range p.Checks {
		if c.Name == name {
			return c.OK, c.Detail, c.Fix
		}
	}
	t.Fatalf("no check %q in %+v", name, p.Checks)
	return false, "", ""
}

func preflightJSON(t *testing.T, out string) preflightOut {
	t.Helper()
	var p preflightOut
	require.NoError(t, json.Unmarshal([]byte(out), &p), out)
	return p
}

// shim writes an executable sh script name into dir.
func shim(t *testing.T, dir, name, script string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script), 0o755))
}

func TestDoctorPreflightChecksWhatOwtNeeds(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("shop")
	realGit, err := exec.LookPath("git")
	require.NoError(t, err)
	realTmux, err := exec.LookPath("tmux")
	require.NoError(t, err)

	// No keys bound (run-shell 'owt tmux init' failed when tmux started,
	// or never ran): Alt+s and the rest do nothing, a failed check. Before,
	// "all good".
	r := e.Owt(repo, "doctor", "--json")
	require.Equal(t, 1, r.Code, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	ok, detail, fix := preflightJSON(t, r.Stdout).check(t, "keys")
	require.False(t, ok, detail)
	require.Contains(t, detail, "none of owt's keys is bound in table root")
	require.Contains(t, fix, "run 'owt tmux init'")
	// A wrong option is why init bound nothing: doctor names it.
	e.Tmux("set-option", "-g", "@owt-key-table", "bogus")
	ok, detail, _ = preflightJSON(t, e.Owt(repo, "doctor", "--json").Stdout).check(t, "keys")
	require.False(t, ok, detail)
	require.Contains(t, detail, `@owt-key-table is "bogus"`)
	e.Tmux("set-option", "-gu", "@owt-key-table")
	e.MustOwt(repo, "tmux", "init")
	// A key another binding took over after owt's.
	e.Tmux("bind-key", "-T", "root", "M-s", "display-message", "mine")
	ok, detail, _ = preflightJSON(t, e.Owt(repo, "doctor", "--json").Stdout).check(t, "keys")
	require.False(t, ok, detail)
	require.Contains(t, detail, "1 of owt's 6 keys are not bound to owt in table root: M-s (@owt-key-switch)")
	e.MustOwt(repo, "tmux", "init")

	// Everything in place: every check passes, exit 0.
	r = e.Owt(repo, "doctor", "--json")
	require.Equal(t, 0, r.Code, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	rep := preflightJSON(t, r.Stdout)
	for _, name := range []string{"tmux", "git", "owt-popup", "owt-mcp", "tool", "owt-on-path", "keys"} {
		ok, detail, _ := rep.check(t, name)
		require.True(t, ok, "%s: %s", name, detail)
	}
	require.Contains(t, e.MustOwt(repo, "doctor"), "all good")

	// Outside a repository (a newcomer's first try): the machine's checks.
	out := e.MustOwt(e.Root, "doctor")
	require.Contains(t, out, "repo:    none: "+e.Root+": not a git repository")
	require.Contains(t, out, "ok    tmux: tmux ")
	require.Contains(t, out, "all good: every check passed")
	ok, _, fix = preflightJSON(t, e.MustOwt(e.Root, "doctor", "--json")).check(t, "owt-on-path")
	require.True(t, ok, fix)

	// tmux off PATH: a failed check with its fix, exit 1.
	noTmux := filepath.Join(e.Root, "no-tmux")
	require.NoError(t, os.MkdirAll(noTmux, 0o755))
	require.NoError(t, os.Symlink(realGit, filepath.Join(noTmux, "git")))
	path := noTmux + string(os.PathListSeparator) + filepath.Dir(e.Bins.Owt)
	r = e.OwtIn(repo, []string{"PATH=" + path}, "", "doctor")
	require.Equal(t, 1, r.Code, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "!     tmux: tmux is not on PATH")
	require.Contains(t, r.Stdout, "→ install tmux 3.2 or later")
	require.NotContains(t, r.Stdout, "all good")
	require.Contains(t, r.Stderr, "check(s) failed")
	r = e.OwtIn(repo, []string{"PATH=" + path}, "", "doctor", "--json")
	require.Equal(t, 1, r.Code)
	ok, _, fix = preflightJSON(t, r.Stdout).check(t, "tmux")
	require.False(t, ok)
	require.Contains(t, fix, "install tmux")

	// An old tmux and an old git (shims printing old versions).
	old := filepath.Join(e.Root, "old")
	shim(t, old, "tmux", `for a; do [ "$a" = -V ] && { echo "tmux 3.1c"; exit 0; }; done; exec `+realTmux+` "$@"`+"\n")
	shim(t, old, "git", `for a; do [ "$a" = --version ] && { echo "git version 2.30.2"; exit 0; }; done; exec `+realGit+` "$@"`+"\n")
	r = e.OwtIn(repo, []string{"PATH=" + old + string(os.PathListSeparator) + e.Var("PATH")}, "", "doctor", "--json")
	require.Equal(t, 1, r.Code, r.Stderr)
	rep = preflightJSON(t, r.Stdout)
	ok, detail, fix = rep.check(t, "tmux")
	require.False(t, ok)
	require.Contains(t, detail, "tmux 3.1 is older than 3.2")
	require.Contains(t, fix, "install tmux 3.2 or later")
	ok, detail, fix = rep.check(t, "git")
	require.False(t, ok)
	require.Contains(t, detail, "git 2.30.2 is older than 2.38")
	require.Contains(t, fix, "install git 2.38 or later")

	// An owt alone in its folder, its programs nowhere on PATH.
	alone := filepath.Join(e.Root, "alone")
	require.NoError(t, os.MkdirAll(alone, 0o755))
	// Copied by cp, not written here: a program file this process holds
	// open for writing can be inherited by a fork of another test's
	// goroutine, and its exec then fails with "text file busy".
	out0, err := exec.Command("cp", e.Bins.Owt, filepath.Join(alone, "owt")).CombinedOutput()
	require.NoError(t, err, "%s", out0)
	cmd := exec.Command(filepath.Join(alone, "owt"), "doctor")
	cmd.Dir = repo
	cmd.Env = e.Environ("PATH=" + alone + string(os.PathListSeparator) + pathWithout(e.Var("PATH"), "owt-popup"))
	stdout, err := cmd.Output()
	out = string(stdout)
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "%s", out)
	require.Equal(t, 1, ee.ExitCode())
	require.Contains(t, out, "!     owt-popup: owt-popup is neither beside owt (in "+alone+") nor on PATH")
	require.Contains(t, out, "!     owt-mcp: owt-mcp is neither beside owt")
	require.Contains(t, out, "→ install owt's programs together")

	// owt not on the PATH new panes get.
	e.Tmux("set-environment", "-g", "PATH", pathWithout(e.Var("PATH"), "owt"))
	r = e.Owt(repo, "doctor")
	require.Equal(t, 1, r.Code, r.Stdout)
	require.Contains(t, r.Stdout, "!     owt-on-path: owt is not on the PATH of new tmux panes")
	// This shell has owt's folder on PATH, tmux's not: that is the fix
	// (a new user was told to link owt onto itself).
	require.Contains(t, r.Stdout, "your shell's PATH has "+filepath.Dir(e.Bins.Owt)+" but tmux's does not")
	require.NotContains(t, r.Stdout, "ln -s")

	// A stale owt first on that PATH (an old install in ~/.local/bin
	// shadowing this one): a failed check naming both. Before, "ok".
	noOwt := pathWithout(e.Var("PATH"), "owt")
	stale := filepath.Join(e.Root, "stale")
	shim(t, stale, "owt", `echo "owt version v0.0.1 (old)"`+"\n")
	e.Tmux("set-environment", "-g", "PATH", stale+string(os.PathListSeparator)+noOwt)
	r = e.Owt(repo, "doctor", "--json")
	require.Equal(t, 1, r.Code, r.Stdout)
	ok, detail, fix = preflightJSON(t, r.Stdout).check(t, "owt-on-path")
	require.False(t, ok, detail)
	require.Contains(t, detail, "finds "+filepath.Join(stale, "owt")+" (v0.0.1 (old)), not this owt ("+e.Bins.Owt+", ")
	require.Contains(t, fix, "keep one owt: remove "+filepath.Join(stale, "owt"))
	// A copy of this owt (another file, the same version) is this owt.
	e.Tmux("set-environment", "-g", "PATH", alone+string(os.PathListSeparator)+noOwt)
	ok, detail, _ = preflightJSON(t, e.MustOwt(repo, "doctor", "--json")).check(t, "owt-on-path")
	require.True(t, ok, detail)
	require.Equal(t, filepath.Join(alone, "owt")+", on the PATH of new tmux panes (tmux show-environment -g PATH)", detail)
	// A relative entry finds owt only in one folder: not searched, and a
	// failed check of its own. Before, "ok relbin/owt".
	rel := filepath.Join(repo, "relbin")
	require.NoError(t, os.MkdirAll(rel, 0o755))
	out0, err = exec.Command("cp", e.Bins.Owt, filepath.Join(rel, "owt")).CombinedOutput()
	require.NoError(t, err, "%s", out0)
	e.Tmux("set-environment", "-g", "PATH", "relbin"+string(os.PathListSeparator)+noOwt+string(os.PathListSeparator))
	r = e.Owt(repo, "doctor")
	require.Equal(t, 1, r.Code, r.Stdout)
	require.Contains(t, r.Stdout, "!     owt-on-path: owt is not on the PATH of new tmux panes")
	require.Contains(t, r.Stdout, `!     tmux-path: the PATH of new tmux panes (tmux show-environment -g PATH) has relative entries ("relbin", "" (empty: the current folder)): `)
	require.Contains(t, r.Stdout, "make every entry of PATH absolute")
	e.Tmux("set-environment", "-g", "PATH", e.Var("PATH"))

	// The configured tool not installed.
	e.WriteFile(repo, ".owt.toml", "[agent]\ntool = \"codex\"\n")
	r = e.OwtIn(repo, []string{"PATH=" + pathWithout(e.Var("PATH"), "codex")}, "", "doctor")
	require.Equal(t, 1, r.Code, r.Stdout)
	require.Contains(t, r.Stdout, `!     tool: [agent] tool = "codex"`)
	require.Contains(t, r.Stdout, "'owt tools' lists them")
	require.True(t, strings.Contains(r.Stdout, "every record has its worktree and session"), r.Stdout)
}

// After a reboot (the tmux server gone, a new one started) an agent whose
// worktree is there and session gone is brought back by owt restore, on
// its own conversation: doctor says so, not 'owt attach' (a shell).
func TestDoctorAfterServerRestartPointsAtRestore(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.idleWithSession(repo, "alpha", "Task alpha")
	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	e.newServer(repo)

	r := e.Owt(repo, "doctor")
	require.Equal(t, 1, r.Code, r.Stdout)
	require.Contains(t, r.Stdout, "the tmux server it ran on is gone")
	require.Contains(t, r.Stdout, "'owt restore' brings back this repository's agents")
	require.NotContains(t, r.Stdout, "owt attach alpha")
}
