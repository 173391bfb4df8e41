package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// freezeMonitor stops this env's status monitor, so records keep saying
// what they said while the screens move on: the lag a tool read from its
// screen (codex) has for a second or more, made to hold. The monitor runs
// again at the end of the test, before the server is killed.
func (e *Env) freezeMonitor() {
	e.t.Helper()
	e.Eventually(10*time.Second, "a monitor", func() bool { return e.MonitorPID() != 0 })
	pid := e.MonitorPID()
	require.NoError(e.t, syscall.Kill(pid, syscall.SIGSTOP))
	e.t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
}

// userTypes is the user typing a prompt into an agent's pane and pressing
// Enter.
func (e *Env) userTypes(pane, text string) {
	e.t.Helper()
	e.Tmux("send-keys", "-t", pane, "-l", text)
	e.Tmux("send-keys", "-t", pane, "Enter")
}

// A permission prompt on screen that the record has not caught up with
// (codex is known by its screen only) gets nothing typed into it by owt
// send, by name or by group: owt looks at the pane before it types.
func TestSendLooksAtTheScreenBeforeTyping(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	cx := e.newAgent(repo, "cx", "codex")
	e.WaitStatus(repo, "cx", "idle", 30*time.Second)
	e.freezeMonitor()

	pane := "=" + cx.Session + ":"
	e.userTypes(pane, "!ask dangerous")
	e.WaitScreen(pane, "Allow command?")
	prompts := len(e.Prompts("cx"))
	require.Equal(t, "idle", e.Status(repo, "cx").Status, "the record lags the screen")

	for _, args := range [][]string{{"send", "cx", "abc"}, {"send", "--idle", "abc"}, {"send", "--all", "abc"}} {
		r := e.Owt(repo, args...)
		require.Equal(t, 1, r.Code, "%v: %s", args, r.Stdout)
		require.NotContains(t, r.Stdout, "sent", args)
		require.Contains(t, r.Stderr, "cx: not ready: it waits for your permission", args)
		require.Contains(t, r.Stderr, "nothing was typed", args)
	}
	require.Empty(t, e.answers()["dangerous"], "the prompt was not answered")
	require.Len(t, e.Prompts("cx"), prompts, "no prompt was submitted")
	require.NotContains(t, e.Capture(pane), "bc", "nothing typed")

	// --answer answers the prompt on screen, though the record lags.
	require.Equal(t, "answered cx's prompt\n", e.MustOwt(repo, "send", "--answer", "cx", "1"))
	e.Eventually(10*time.Second, "the answer", func() bool { return e.answers()["dangerous"] == "yes" })
	require.Len(t, e.Prompts("cx"), prompts, "the answer was no prompt")

	// The same with the prompt asked for through owt send: the record says
	// working (owt set it when it typed), the screen asks.
	e.MustOwt(repo, "send", "cx", "!ask again-dangerous")
	e.WaitScreen(pane, "$ again-dangerous") // the dialog's command line
	prompts = len(e.Prompts("cx"))
	r := e.Owt(repo, "send", "cx", "abc")
	require.Equal(t, 1, r.Code, r.Stdout)
	requireOneLineError(t, r, "cx: not ready: it waits for your permission")
	require.Empty(t, e.answers()["again-dangerous"], "the prompt was not answered")
	require.Len(t, e.Prompts("cx"), prompts, "no prompt was submitted")
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

// --answer types only into a prompt that is on screen: an agent whose
// prompt the user answered meanwhile (the record still says waiting), or
// one that is idle, is refused and gets nothing. --answer with a group
// other than --waiting, and a multi-line answer, are bad usage.
func TestAnswerOnlyIntoAPromptOnScreen(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	conf1 := e.newAgent(repo, "conf1", "codex")
	e.newAgent(repo, "conf2", "claude")
	e.WaitStatus(repo, "conf1", "idle", 30*time.Second)
	e.WaitStatus(repo, "conf2", "idle", 30*time.Second)
	e.MustOwt(repo, "send", "conf1", "!ask thing\n!sleep 300s")
	e.WaitStatus(repo, "conf1", "waiting", 30*time.Second)
	e.freezeMonitor()

	pane := "=" + conf1.Session + ":"
	e.Tmux("send-keys", "-t", pane, "1")
	e.Eventually(10*time.Second, "the user's answer", func() bool { return e.answers()["thing"] == "yes" })
	e.WaitScreen(pane, "esc to interrupt")
	require.Equal(t, "waiting", e.Status(repo, "conf1").Status, "the record lags the screen")
	prompts1, prompts2 := len(e.Prompts("conf1")), len(e.Prompts("conf2"))

	for _, args := range [][]string{{"send", "--waiting", "--answer", "1"}, {"send", "--answer", "conf1", "1"}} {
		r := e.Owt(repo, args...)
		require.Equal(t, 1, r.Code, "%v: %s", args, r.Stdout)
		require.Empty(t, r.Stdout, args)
		require.Contains(t, r.Stderr, "conf1: not ready: it does not wait on a prompt now (its screen reads working)", args)
	}
	r := e.Owt(repo, "send", "--answer", "conf2", "1")
	require.Equal(t, 1, r.Code, r.Stdout)
	requireOneLineError(t, r, "conf2: not ready: it does not wait on a prompt now (its screen reads idle)")

	for _, args := range [][]string{
		{"send", "--answer", "--all", "1"},
		{"send", "--answer", "--idle", "1"},
		{"send", "--answer", "--working", "1"},
		{"send", "--answer", "conf2", "1\n2"},
	} {
		r := e.Owt(repo, args...)
		require.Equal(t, 2, r.Code, "%v: %s", args, r.Stderr)
		require.Empty(t, r.Stdout, args)
		require.Contains(t, r.Stderr, "--answer", args)
	}
	require.Len(t, e.Prompts("conf1"), prompts1, "conf1 got no prompt")
	require.Len(t, e.Prompts("conf2"), prompts2, "conf2 got no prompt")
	require.False(t, strings.Contains(e.Capture(pane), "› 1"), "nothing typed into conf1")
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
