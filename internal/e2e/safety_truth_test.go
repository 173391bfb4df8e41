package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
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
}
