package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// insidePane is the environment of a program the user runs in pane of
// the test server: tmux reads $TMUX and $TMUX_PANE to find "current".
func (e *Env) insidePane(pane string) []string {
	return []string{"TMUX=" + e.Socket + ",1,0", "TMUX_PANE=" + pane}
}

// userSession starts a session of the user's own, with a program holding
// "unsaved work" in it, and returns its pane id.
func (e *Env) userSession(name string) string {
	e.t.Helper()
	return e.Tmux("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", name, "--", "sleep", "600")
}

// sessionOptions lists the user options set on a session itself.
func (e *Env) sessionOptions(target string) string {
	out, _ := e.TryTmux("show-options", "-t", target)
	return out
}

// Issue 8.1: owt new run from the user's pane marks only the session it
// makes; doctor never kills a session it cannot prove it made.
func TestNewFromAPaneMarksOnlyItsOwnSession(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	work := e.userSession("work")

	r := e.OwtIn(repo, e.insidePane(work), "", "new", "--json", "--no-agent", "--no-setup", "--name", "one", "first task")
	require.Equal(t, 0, r.Code, r.Stderr)
	var one Item
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &one), r.Stdout)
	// The session's runner marks it, by its own pane id, as it starts.
	e.Eventually(5*time.Second, "one's session is marked", func() bool { return e.SessionOption(one.Session, "@owt-name") == "one" })
	require.Equal(t, repo, e.SessionOption(one.Session, "@owt-repo"))
	require.NotContains(t, e.sessionOptions("work"), "@owt-", "the caller's session is not owt's")

	// From another agent's pane: that agent keeps its name.
	onePane := e.Tmux("display-message", "-p", "-t", "="+one.Session+":", "#{pane_id}")
	r = e.OwtIn(repo, e.insidePane(onePane), "", "new", "--json", "--name", "two", "second task")
	require.Equal(t, 0, r.Code, r.Stderr)
	var two Item
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &two), r.Stdout)
	e.Eventually(5*time.Second, "two's session is marked", func() bool { return e.SessionOption(two.Session, "@owt-name") == "two" })
	require.Equal(t, "one", e.SessionOption(one.Session, "@owt-name"))
	require.Equal(t, "claude", e.SessionOption(two.Session, "@owt-tool"))
	require.NotContains(t, e.sessionOptions("work"), "@owt-")

	// A session of the user's that carries owt's options (set by hand, or
	// by an older owt) is reported at most, never killed.
	e.userSession("mine")
	e.Tmux("set-option", "-t", "mine", "@owt-repo", repo)
	e.Tmux("set-option", "-t", "mine", "@owt-name", "ghost")
	r = e.Owt(repo, "doctor", "--fix", "--json")
	rep := doctorJSON(t, r.Stdout)
	require.Contains(t, rep.kinds(false), "session-without-record mine")
	require.NotContains(t, rep.kinds(true), "session-without-record mine")
	sessions := e.Sessions()
	for _, s := range []string{"work", "mine", one.Session, two.Session} {
		require.Contains(t, sessions, s, "doctor --fix must leave %s alone", s)
	}
	require.Equal(t, "sleep", e.Tmux("display-message", "-p", "-t", work, "#{pane_current_command}"))
}

// Issue 8.12: an agent's window is named after the tool, and the agent is
// the pane's foreground process (not "owt").
func TestAgentWindowShowsTheTool(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	it := e.newAgent(repo, "w", "claude")
	target := "=" + it.Session + ":"
	require.Equal(t, "claude", e.Tmux("display-message", "-p", "-t", target, "#{window_name}"))
	e.Eventually(5*time.Second, "the agent is the pane's foreground process", func() bool {
		return e.Tmux("display-message", "-p", "-t", target, "#{pane_current_command}") == "claude"
	})

	// Ctrl-Z would stop the agent with no shell to resume it: it goes on.
	e.Tmux("send-keys", "-t", target, "C-z")
	e.Eventually(5*time.Second, "the stopped agent is continued", func() bool {
		for _, ev := range e.Events() {
			if ev.Event == "resume" {
				return true
			}
		}
		return false
	})
	require.Equal(t, 0, e.Owt(repo, "send", "w", "after ctrl-z").Code)
	e.WaitPrompts("w", 2)
	e.WaitStatus(repo, "w", "idle", 10*time.Second)

	// Ctrl-C reaches the agent; when it exits, the pane is a usable shell,
	// and the window is named after what runs in it again.
	e.Tmux("send-keys", "-t", target, "C-c")
	e.Tmux("send-keys", "-t", target, "C-c")
	e.WaitStatus(repo, "w", "exited", 10*time.Second)
	// Typed once owt has said so and the shell is next, as a user would.
	e.WaitScreen(target, "This shell is in the worktree")
	e.Tmux("send-keys", "-t", target, "-l", "echo shell-$((40+2))")
	e.Tmux("send-keys", "-t", target, "Enter")
	e.WaitScreen(target, "shell-42")
	e.Eventually(5*time.Second, "the window is renamed after the shell", func() bool {
		return e.Tmux("display-message", "-p", "-t", target, "#{window_name}") == "sh"
	})
}

// newAgent starts a fake agent of tool with a task and waits until it is
// past start-up.
func (e *Env) newAgent(repo, name, tool string) Item {
	e.t.Helper()
	out := e.MustOwt(repo, "new", "--json", "--no-setup", "--tool", tool, "--name", name, "say hello")
	var it Item
	require.NoError(e.t, json.Unmarshal([]byte(out), &it), out)
	e.WaitPrompts(name, 1)
	return it
}

// secondServer starts another tmux server of the same user on its own
// socket and returns the environment of a program run inside it.
func (e *Env) secondServer() (socket string, env []string) {
	e.t.Helper()
	socket = filepath.Join(e.Root, "tmux", "second.sock")
	e.Tmux("-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", "other", "-x", "120", "-y", "40")
	e.t.Cleanup(func() { _, _ = e.TryTmux("-S", socket, "kill-server") })
	return socket, []string{"TMUX=" + socket + ",1,0"}
}

// Issue 8.7: a record belongs to the server that made it.
func TestAgentOnAnotherServerIsLeftAlone(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	x := e.newAgent(repo, "x", "claude")
	sockB, onB := e.secondServer()

	r := e.OwtIn(repo, onB, "", "list", "--json", "--fresh")
	require.Equal(t, 0, r.Code, r.Stderr)
	var items []struct {
		Name, Status, Where string
		Live                bool
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &items), r.Stdout)
	require.Len(t, items, 1)
	require.Equal(t, "other-server", items[0].Where)
	require.False(t, items[0].Live)
	require.NotEqual(t, "exited", items[0].Status)
	r = e.OwtIn(repo, onB, "", "list")
	require.Contains(t, r.Stdout, "on another tmux server")

	r = e.OwtIn(repo, onB, "", "attach", "x")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "runs on another tmux server")
	r = e.OwtIn(repo, onB, "", "status", "x")
	require.Contains(t, r.Stdout, "runs on another tmux server", "not 'its session is gone'")
	r = e.OwtIn(repo, onB, "", "doctor", "--fix", "--json")
	require.NotContains(t, r.Stdout, "worktree-without-session")
	onlyOther, _ := e.TryTmux("-S", sockB, "list-sessions", "-F", "#{session_name}")
	require.Equal(t, "other", onlyOther, "nothing recreated on the second server")

	// The first server still owns x: a send from there reaches the agent.
	require.Equal(t, 0, e.Owt(repo, "send", "x", "still yours").Code)
	e.WaitPrompts("x", 2)
	require.NotEqual(t, "exited", e.Status(repo, "x").Status)

	// Once the first server is really gone, the second may recreate it.
	e.Tmux("kill-server")
	r = e.OwtIn(repo, onB, "", "list", "--json", "--fresh")
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &items), r.Stdout)
	require.Equal(t, "gone", items[0].Where)
	// A session of that name that owt did not make blocks the recreate,
	// with a sentence instead of tmux's "duplicate session".
	e.Tmux("-S", sockB, "new-session", "-d", "-s", x.Session)
	r = e.OwtIn(repo, onB, "", "attach", "x")
	require.Contains(t, r.Stderr, "a session of that name exists that owt did not make")
	e.Tmux("-S", sockB, "kill-session", "-t", "="+x.Session)
	r = e.OwtIn(repo, onB, "", "doctor", "--fix", "--json")
	require.Contains(t, doctorJSON(t, r.Stdout).kinds(true), "worktree-without-session x")
	onB2, _ := e.TryTmux("-S", sockB, "list-sessions", "-F", "#{session_name}")
	require.Contains(t, onB2, x.Session)
}

// Issue 8.8: a corrupt state file is rebuilt from what tmux and git know.
func TestCorruptStateRebuiltFromTmuxAndGit(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".env", "SECRET=1\n")
	a := e.newAgent(repo, "a", "codex")
	s := e.shell(repo, "s")
	e.WriteFile(s.Path, ".env", "SECRET=edited by the agent\n")
	// A session of the user's that carries a's options (anyone can set
	// them) must not be taken for a's.
	e.userSession("work")
	e.Tmux("set-option", "-t", "work", "@owt-name", "a")
	e.Tmux("set-option", "-t", "work", "@owt-repo", repo)
	e.Tmux("set-option", "-t", "work", "@owt-tool", "claude")
	// Once a's turn is over: a hook of a's writing the state after the
	// garbage would start a fresh file, and nothing would be rebuilt.
	e.Eventually(30*time.Second, "a idle", func() bool { return e.Find(repo, "a").Status == "idle" })
	e.corruptState("*.json", "{not json")

	r := e.Owt(repo, "list", "--json", "--fresh")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "rebuilt")
	got := map[string]Item{}
	var items []Item
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &items), r.Stdout)
	for _, it := range items {
		got[it.Name] = it
	}
	require.Equal(t, "codex", got["a"].Tool)
	require.Equal(t, a.Session, got["a"].Session, "the session owt made, not the one with forged options")
	require.Equal(t, a.Port, got["a"].Port)
	require.Equal(t, s.Port, got["s"].Port)
	require.True(t, got["a"].Live)
	require.True(t, e.Status(repo, "a").Live, "owt status finds the live session")

	require.Equal(t, 0, e.Owt(repo, "send", "a", "after the rebuild").Code)
	e.WaitPrompts("a", 2)
	n := e.shell(repo, "n")
	require.NotEqual(t, a.Port, n.Port, "a rebuilt record keeps its port block")
	require.NotEqual(t, s.Port, n.Port)

	// The edited .env is still work the rebuilt record protects.
	r = e.Owt(repo, "delete", "s")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, ".env")
	require.FileExists(t, filepath.Join(s.Path, ".env"))
	require.Contains(t, e.Sessions(), "work")
}

// Issue 8.9: kill -9 in the middle of owt new leaves a record marked as
// creating; owt doctor names it and --fix undoes it.
func TestInterruptedCreateIsUndoneByDoctor(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	// git runs post-checkout inside "git worktree add": hold owt new there.
	marker := filepath.Join(e.Root, "in-checkout")
	hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ntouch '"+marker+"'\nexec sleep 30\n"), 0o755))

	cmd := exec.Command(owtBin, "new", "--no-setup", "--name", "cut", "a task cut short")
	cmd.Dir = repo
	cmd.Env = e.Environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	e.Eventually(10*time.Second, "owt new reaches git's checkout", func() bool {
		_, err := os.Stat(marker)
		return err == nil
	})

	// While it runs, doctor leaves it alone and list says so.
	rep := doctorJSON(t, e.Owt(repo, "doctor", "--json").Stdout)
	require.NotContains(t, strings.Join(rep.kinds(false), ","), "cut")
	require.Contains(t, e.MustOwt(repo, "list"), "being created")

	require.NoError(t, syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL))
	_ = cmd.Wait()
	require.NoError(t, os.Remove(hook))

	require.Contains(t, e.MustOwt(repo, "list"), "interrupted")
	// A file someone wrote in the worktree since is never removed.
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", "cut")
	e.WriteFile(wt, "notes.md", "mine\n")
	r := e.Owt(repo, "doctor", "--fix", "--json")
	require.Contains(t, doctorJSON(t, r.Stdout).kinds(false), "interrupted-create cut")
	require.Contains(t, r.Stdout, "notes.md")
	require.FileExists(t, filepath.Join(wt, "notes.md"))
	require.NoError(t, os.Remove(filepath.Join(wt, "notes.md")))

	r = e.Owt(repo, "attach", "cut")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "interrupted")
	r = e.Owt(repo, "doctor", "--json")
	require.Equal(t, 1, r.Code)
	require.Contains(t, doctorJSON(t, r.Stdout).kinds(false), "interrupted-create cut")

	r = e.Owt(repo, "doctor", "--fix", "--json")
	require.Contains(t, doctorJSON(t, r.Stdout).kinds(true), "interrupted-create cut", r.Stdout)
	require.Empty(t, e.List(repo))
	require.Empty(t, e.Git(repo, "branch", "--list", "*/cut"))
	require.NotContains(t, e.Git(repo, "worktree", "list"), "cut")
	_, err := os.Stat(filepath.Join(filepath.Dir(repo), "app.worktrees", "cut"))
	require.True(t, os.IsNotExist(err), "worktree folder removed")

	// The name is free again.
	e.shell(repo, "cut")
}

// windowSize is a session's window size as "WxH".
func (e *Env) windowSize(session string) string {
	return e.Tmux("display-message", "-p", "-t", "="+session+":", "#{window_width}x#{window_height}")
}

// Issue 9: sessions are made at the size the user will see them at, not
// tmux's 80x24: [tmux] size while no client is attached (200x50 unless
// set), the user's terminal once one is.
func TestSessionsAreMadeAtTheClientsSize(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	a := e.shell(repo, "a")
	require.Equal(t, "200x50", e.windowSize(a.Session))

	e.WriteFile(repo, ".owt.toml", "[tmux]\nsize = \"100x30\"\n")
	c := e.shell(repo, "c")
	require.Equal(t, "100x30", e.windowSize(c.Session))
	e.WriteFile(repo, ".owt.toml", "[tmux]\nsize = \"big\"\n")
	r := e.Owt(repo, "new", "--no-agent", "--name", "d", "d")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "tmux.size")
	require.NoError(t, os.Remove(filepath.Join(repo, ".owt.toml")))

	// Run from a pane of a session a 120x40 terminal is attached to.
	e.AttachClient("harness")
	pane := e.Tmux("display-message", "-p", "-t", "=harness:", "#{pane_id}")
	r = e.OwtIn(repo, e.insidePane(pane), "", "new", "--json", "--no-agent", "--no-setup", "--name", "b", "b")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, e.windowSize("harness"), e.windowSize("app/b"), "what the attached 120x40 terminal shows")
	require.Equal(t, "120", strings.Split(e.windowSize("app/b"), "x")[0])
}

// Issue 8.9: a create killed after its session started (its record never
// got the session's ids) is finished by doctor --fix when the session
// proves to be the one it made: owt's runner in a pane, its environment
// naming the record.
func TestInterruptedCreateWithALiveSessionIsFinished(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	it := e.newAgent(repo, "late", "claude")
	// Its first turn over, nothing writes the record meanwhile (a hook's
	// write between this test's read and write would undo the edit).
	e.WaitStatus(repo, "late", "idle", 10*time.Second)
	// What kill -9 between "tmux new-session" and the record's last write
	// leaves: the record still creating, without the session's ids.
	// Under the record's own lock, as owt's writers take it: the monitor's
	// later confirmation of the idle screen then reads this edit, not the
	// file before it; written as owt writes it (temp file, rename): a
	// reader never sees half a file and takes it for corrupt.
	e.editRecord("*.json", "late", func(rec map[string]any) {
		rec["creating"] = true
		for _, k := range []string{"session_id", "pane", "server"} {
			delete(rec, k)
		}
	})
	require.Contains(t, e.MustOwt(repo, "list"), "interrupted")

	r := e.Owt(repo, "doctor", "--fix", "--json")
	require.Contains(t, doctorJSON(t, r.Stdout).kinds(true), "interrupted-create late", r.Stdout)
	got := e.Find(repo, "late")
	require.True(t, got.Live)
	require.Equal(t, it.Session, got.Session)
	require.Equal(t, 0, e.Owt(repo, "send", "late", "still there?").Code)
	e.WaitPrompts("late", 2)

	// A user's session of that name is not taken for it.
	e.Tmux("kill-session", "-t", "="+it.Session)
	e.WaitStatus(repo, "late", "exited", 10*time.Second) // the monitor is done with it
	e.userSession(it.Session)
	e.editRecord("*.json", "late", func(rec map[string]any) {
		rec["creating"] = true
		for _, k := range []string{"session_id", "pane", "server"} {
			delete(rec, k)
		}
	})
	r = e.Owt(repo, "doctor", "--fix", "--json")
	require.Contains(t, doctorJSON(t, r.Stdout).kinds(false), "interrupted-create late")
	require.Contains(t, e.Sessions(), it.Session)
}
