package e2e

import (
	"encoding/json"
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

// landingUntouched checks that a refused ship or merge changed nothing:
// main, the branch and the worktree's files are as before, the session
// is still there.
func (e *Env) landingUntouched(repo string, it Item, mainTip, branchTip, files string) {
	e.t.Helper()
	require.Equal(e.t, mainTip, e.Git(repo, "rev-parse", "main"), "main did not move")
	require.Equal(e.t, branchTip, e.Git(repo, "rev-parse", it.Branch), "no commit on the branch")
	require.Equal(e.t, files, digest(e.t, it.Path), "the worktree is as it was")
	require.Contains(e.t, e.Sessions(), it.Session, "the agent's session is alive")
}

// Ship and merge never take a turn from under an agent that works or
// waits for the user: they refuse, say why and change nothing; --force
// goes ahead.
func TestShipAndMergeRefuseABusyAgent(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")

	// busy has a commit and a half-written file, and works on.
	busy := e.agentScript(repo, "busy", "!write done.txt done\n!commit the done part\n!write half.txt half\n!sleep 300s")
	e.Eventually(30*time.Second, "busy wrote half.txt", func() bool {
		_, err := os.Stat(filepath.Join(busy.Path, "half.txt"))
		return err == nil
	})
	e.WaitStatus(repo, "busy", "working", 10*time.Second)
	mainTip, branchTip, files := e.Git(repo, "rev-parse", "main"), e.Git(repo, "rev-parse", busy.Branch), digest(t, busy.Path)
	for _, args := range [][]string{{"ship", "busy", "--yes"}, {"merge", "busy", "--yes"}, {"merge", "busy", "--yes", "--keep"}} {
		r := e.Owt(repo, args...)
		requireOneLineError(t, r, "busy is working")
		require.Contains(t, r.Stderr, "--force", args)
		require.Equal(t, 1, r.Code, args)
		e.landingUntouched(repo, busy, mainTip, branchTip, files)
	}

	// asker has a commit and waits on a permission prompt.
	asker := e.agentScript(repo, "asker", "!write a.txt a\n!commit a\n!ask rm -rf build")
	e.WaitStatus(repo, "asker", "waiting", 30*time.Second)
	mainTip, askerTip, askerFiles := e.Git(repo, "rev-parse", "main"), e.Git(repo, "rev-parse", asker.Branch), digest(t, asker.Path)
	for _, args := range [][]string{{"ship", "asker", "--yes"}, {"merge", "asker", "--yes"}} {
		r := e.Owt(repo, args...)
		requireOneLineError(t, r, "asker waits for you")
		require.Contains(t, r.Stderr, "--force", args)
		e.landingUntouched(repo, asker, mainTip, askerTip, askerFiles)
	}
	// owt check (and so the Alt+m popup, which shows its blockers) says it too.
	require.Contains(t, e.MustOwt(repo, "check", "busy"), "! its agent is working: let its turn end first")
	require.Contains(t, e.MustOwt(repo, "check", "asker"), "! its agent waits for you: answer it and let its turn end first")

	// --force ships the half-done turn all the same.
	out := e.MustOwt(repo, "ship", "busy", "--yes", "--force")
	require.Contains(t, out, "merged feat/busy into main")
	require.Equal(t, "half\n", e.Git(repo, "show", "main:half.txt")+"\n")
}

// agentScript starts a fake claude in worktree name with a scripted task
// and returns at once.
func (e *Env) agentScript(repo, name, script string) Item {
	e.t.Helper()
	out := e.MustOwt(repo, "new", "--json", "--no-setup", "--tool", "claude", "--name", name, "--", script)
	var it Item
	require.NoError(e.t, json.Unmarshal([]byte(out), &it), out)
	return it
}

// Alt+m on a working agent with uncommitted work (the popup would offer
// to ship it) is refused, saying why, and nothing changes.
func TestMergePopupRefusesAWorkingAgent(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("app")
	busy := e.agentScript(repo, "busy", "!write half.txt half\n!sleep 300s")
	e.Eventually(30*time.Second, "busy wrote half.txt", func() bool {
		_, err := os.Stat(filepath.Join(busy.Path, "half.txt"))
		return err == nil
	})
	e.WaitStatus(repo, "busy", "working", 10*time.Second)
	mainTip, branchTip, files := e.Git(repo, "rev-parse", "main"), e.Git(repo, "rev-parse", busy.Branch), digest(t, busy.Path)

	p := e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "1/1")
	e.keys(p, "Enter")
	screen := e.WaitScreen(p, "Press any key to close")
	require.Contains(t, screen, "Merge would be refused")
	require.Contains(t, screen, "its agent is working: let its turn end first")
	e.keys(p, "Enter")
	e.waitClosed(p)
	e.landingUntouched(repo, busy, mainTip, branchTip, files)

	// The control popup's s (ship) says the same.
	p = e.pane(repo, owtBin, "popup", "control")
	e.WaitScreen(p, "busy")
	e.selectRow(p, "busy")
	e.typeText(p, "s")
	screen = e.WaitScreen(p, "Ship busy: refused, nothing changed")
	require.Contains(t, screen, "its agent is working: let its turn end first")
	e.keys(p, "Escape")
	e.landingUntouched(repo, busy, mainTip, branchTip, files)
}

// Choosing agents by status never answers their prompts: --waiting alone
// is refused before anything is typed; --answer is the one way to type
// into a prompt, and owt says "answered", not "sent", when the dialog took
// the text, and says so when the rest of it sits typed, not submitted.
func TestSendByStatusNeverAnswersAPrompt(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	w := e.newAgent(repo, "w", "claude")
	e.WaitStatus(repo, "w", "idle", 20*time.Second)
	e.MustOwt(repo, "send", "w", "!ask rm -rf dist\n!ask rm -rf cache")
	e.WaitStatus(repo, "w", "waiting", 20*time.Second)
	pane := "=" + w.Session + ":"
	e.WaitScreen(pane, "rm -rf dist")

	r := e.Owt(repo, "send", "--waiting", "approve it")
	require.Equal(t, 2, r.Code, r.Stderr)
	requireOneLineError(t, r, "--answer")
	require.Empty(t, r.Stdout)
	require.Empty(t, e.answers(), "nothing answered")
	require.NotContains(t, e.Capture(pane), "pprove", "nothing typed")
	require.Equal(t, "waiting", e.Status(repo, "w").Status)

	// --answer with one key: the dialog took it; no prompt was sent.
	r = e.Owt(repo, "send", "--waiting", "--answer", "1")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "answered w's prompt\n", r.Stdout)
	e.Eventually(10*time.Second, "dist answered", func() bool { return e.answers()["rm -rf dist"] == "yes" })
	e.WaitScreen(pane, "rm -rf cache")
	e.WaitStatus(repo, "w", "waiting", 20*time.Second)

	// --answer with words: the first key answers the menu ("a": yes,
	// always), the rest is left in the input. Not "sent": owt says what
	// happened and exits 1.
	prompts := len(e.Prompts("w"))
	r = e.Owt(repo, "send", "--json", "--answer", "w", "approve it")
	require.Equal(t, 1, r.Code, r.Stdout)
	requireOneLineError(t, r, "not submitted")
	require.Contains(t, r.Stderr, "its prompt took part of the text as its answer")
	var res []struct {
		Name     string
		Sent     bool
		Answered bool
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res), r.Stdout)
	require.Len(t, res, 1)
	require.False(t, res[0].Sent, "the text did not become a prompt")
	require.Equal(t, "always", e.answers()["rm -rf cache"])
	require.Len(t, e.Prompts("w"), prompts, "no prompt was submitted")
}

// Bad input says what was wrong in the user's own words and exits 2 when
// the input itself is wrong; nothing changes.
func TestBadInputIsNamedAsTypedAndExitsTwo(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	before := e.snapshot(repo)

	r := e.Owt(repo, "list", "--bogus")
	require.Equal(t, 2, r.Code)
	require.Equal(t, "owt: flag provided but not defined: --bogus\n", r.Stderr)
	r = e.Owt(repo, "new", "--tool", "claude", "--name")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "--name", r.Stderr)
	require.NotContains(t, r.Stderr, " -name", r.Stderr)

	// owt new: every option that is wrong in itself is bad usage (2).
	for _, args := range [][]string{
		{"--tool", "nope"},
		{"--base", "nope"},
		{"--name", "../evil"},
		{"--branch", "a..b"},
	} {
		r := e.Owt(repo, append(append([]string{"new", "--no-setup"}, args...), "Do things")...)
		require.Equal(t, 2, r.Code, "%v: %s", args, r.Stderr)
		requireOneLineError(t, r, args[1])
	}

	// A run's bad --name is named as the --name, not "give --name".
	e.WriteFile(repo, "plan.toml", "[run]\ntool = \"claude\"\n\n[[task]]\nid = \"a\"\ntask = \"A\"\n")
	r = e.Owt(repo, "run", "start", "plan.toml", "--name", "../evil", "--dry-run")
	require.Equal(t, 2, r.Code, r.Stderr)
	requireOneLineError(t, r, `--name "../evil" cannot name a run`)
	require.NotContains(t, r.Stderr, "give --name")
	require.Equal(t, before, e.snapshot(repo))
}

// owt note that reached no worktree says so and exits 1.
func TestNoteWrittenNowhereFails(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.commitIn(repo, "AGENTS.md", "# project rules\n", "agents")
	oc := newJSON(t, e, repo, "--tool", "opencode", "--no-setup", "--name", "oc", "Task oc")

	r := e.Owt(repo, "note", "Shared context")
	require.Equal(t, 1, r.Code, r.Stdout)
	require.Contains(t, r.Stdout, "oc: skipped: opencode reads AGENTS.md")
	requireOneLineError(t, r, "the note was written into none of the 1 worktree(s)")
	require.NoFileExists(t, filepath.Join(oc.Path, "AGENTS.override.md"))

	// A claude worktree takes it: written somewhere, exit 0.
	newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "cl", "Task cl")
	r = e.Owt(repo, "note", "Shared context")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "CLAUDE.local.md")
}

// A base branch deleted after the worktree was made is a blocker the
// moment owt check or the Alt+m popup looks, not after the user said yes.
func TestCheckAndMergePopupSeeADeletedBase(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("app")
	e.Git(repo, "branch", "release")
	fix := e.shell(repo, "fix", "--base", "release")
	e.commitIn(fix.Path, "fix.txt", "fixed\n", "the fix")
	e.Git(repo, "branch", "-D", "release")

	out := e.MustOwt(repo, "check", "fix")
	require.Contains(t, out, "! its base branch release no longer exists; merge with --into BRANCH", out)
	var rep struct {
		BaseMissing bool `json:"base_missing"`
	}
	raw := e.MustOwt(repo, "check", "fix", "--json")
	require.NoError(t, json.Unmarshal([]byte(raw), &rep), raw)
	require.True(t, rep.BaseMissing, raw)

	p := e.pane(repo, owtBin, "popup", "merge")
	e.WaitScreen(p, "1/1")
	e.keys(p, "Enter")
	screen := e.WaitScreen(p, "Press any key to close")
	require.Contains(t, screen, "Merge would be refused")
	require.Contains(t, screen, "release no longer exists")
	e.keys(p, "Enter")
	e.waitClosed(p)
	require.DirExists(t, fix.Path)
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
