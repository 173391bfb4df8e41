package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
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

// Ship, merge and sync look at the screen too: a turn the user started in
// the pane (spinner on screen) while the record still says idle is not
// landed, ended or merged into; --force still goes ahead.
func TestShipMergeSyncSeeATurnTheRecordMissed(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	cx := e.newAgent(repo, "cx", "codex")
	e.WaitStatus(repo, "cx", "idle", 30*time.Second)
	e.commitIn(cx.Path, "done.txt", "done\n", "the done part")
	e.freezeMonitor()

	pane := "=" + cx.Session + ":"
	e.userTypes(pane, "!sleep 300s")
	e.WaitScreen(pane, "esc to interrupt")
	require.NoError(t, os.WriteFile(filepath.Join(cx.Path, "cx.txt"), []byte("halfdone\n"), 0o644))
	e.commitIn(repo, "main.txt", "main moved\n", "main moves on")
	require.Equal(t, "idle", e.Status(repo, "cx").Status, "the record lags the screen")

	mainTip, branchTip, files := e.Git(repo, "rev-parse", "main"), e.Git(repo, "rev-parse", cx.Branch), digest(t, cx.Path)
	for _, args := range [][]string{{"ship", "cx", "--yes"}, {"merge", "cx", "--yes"}, {"sync", "cx"}} {
		r := e.Owt(repo, args...)
		require.Equal(t, 1, r.Code, "%v: %s", args, r.Stdout)
		requireOneLineError(t, r, "cx is working")
		require.Contains(t, r.Stderr, "--force", args)
		e.landingUntouched(repo, cx, mainTip, branchTip, files)
	}

	out := e.MustOwt(repo, "ship", "cx", "--yes", "--force")
	require.Contains(t, out, "merged "+cx.Branch+" into main")
	require.Equal(t, "halfdone", e.Git(repo, "show", "main:cx.txt"))
}

// A working agent's checkout is not synced under it (the record says
// working here); --force does it.
func TestSyncRefusesAWorkingAgent(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	q1 := e.newAgent(repo, "q1", "claude")
	e.WaitStatus(repo, "q1", "idle", 20*time.Second)
	e.MustOwt(repo, "send", "q1", "!sleep 300s")
	e.WaitStatus(repo, "q1", "working", 20*time.Second)
	e.commitIn(repo, "main.txt", "main moved\n", "main moves on")
	tip := e.Git(repo, "rev-parse", q1.Branch)

	r := e.Owt(repo, "sync", "q1")
	require.Equal(t, 1, r.Code, r.Stdout)
	requireOneLineError(t, r, "q1 is working: syncing now would change its files mid-turn")
	require.Equal(t, tip, e.Git(repo, "rev-parse", q1.Branch), "nothing brought in")

	r = e.Owt(repo, "sync", "--all")
	require.Equal(t, 1, r.Code, r.Stdout)
	require.Equal(t, tip, e.Git(repo, "rev-parse", q1.Branch), "nothing brought in")

	require.Contains(t, e.MustOwt(repo, "sync", "q1", "--force"), "q1: brought 1 commit(s) of main in")
}

// Merges and ships of the same worktree that race: one lands, and each
// other one says the worktree is being landed or was landed by another owt
// (or that main moved meanwhile), never a made-up reason about files the
// winner wrote.
func TestRacingLandingsOfOneWorktreeSayWhatHappened(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	for round, verb := range []string{"merge", "ship"} {
		name := "dup" + verb
		dup := e.shell(repo, name)
		e.commitIn(dup.Path, name+".txt", "dup\n", "the dup work")
		const n = 4
		results := make(chan fixture.Result, n)
		for i := 0; i < n; i++ {
			go func() { results <- e.Owt(repo, verb, name, "--yes") }()
		}
		landed := 0
		for i := 0; i < n; i++ {
			r := <-results
			if r.Code == 0 {
				landed++
				continue
			}
			require.Equal(t, 1, r.Code, "round %d: %s", round, r.Stderr)
			require.NotContains(t, r.Stderr, "untracked or ignored", "round %d", round)
			require.Regexp(t, `being merged or shipped by another owt|moved meanwhile|no such worktree|removed meanwhile`, r.Stderr, "round %d", round)
		}
		require.Equal(t, 1, landed, "exactly one %s landed", verb)
		require.Equal(t, "dup", e.Git(repo, "show", "main:"+name+".txt"))
	}
}

// The control popup's ship dialog, refusing a working agent, names what
// stops a ship: not the uncommitted files (ship commits them) nor "no
// commits yet".
func TestControlPopupShipRefusalNamesOnlyWhatStopsAShip(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("app")
	busy := e.agentScript(repo, "busy", "!write done.txt done\n!commit the done part\n!write half.txt half\n!sleep 300s")
	e.Eventually(30*time.Second, "busy wrote half.txt", func() bool {
		_, err := os.Stat(filepath.Join(busy.Path, "half.txt"))
		return err == nil
	})
	e.WaitStatus(repo, "busy", "working", 10*time.Second)
	mainTip, branchTip, files := e.Git(repo, "rev-parse", "main"), e.Git(repo, "rev-parse", busy.Branch), digest(t, busy.Path)

	p := e.pane(repo, owtBin, "popup", "control")
	e.WaitScreen(p, "busy")
	e.selectRow(p, "busy")
	e.typeText(p, "s")
	screen := e.WaitScreen(p, "Ship busy: refused, nothing changed")
	require.Contains(t, screen, "its agent is working: let its turn end first")
	require.NotContains(t, screen, "commit them, or ship")
	require.NotContains(t, screen, "'owt ship' commits")
	e.keys(p, "Escape")
	e.landingUntouched(repo, busy, mainTip, branchTip, files)
}
