package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
)

// Issue 21: conversations that come back. A tmux server that died takes
// every agent's process with it; owt restore starts each again in its
// worktree on its tool's own session (the fake plays Claude Code 2.1.330:
// --resume ID takes up the session whose transcript exists, and an
// unknown id exits 1 with "No conversation found with session ID: ID").

// resumeView is the part of owt status --json these tests read.
type resumeView struct {
	Status       string `json:"status"`
	Live         bool   `json:"live"`
	AgentSession string `json:"agent_session"`
	Resume       *struct {
		Outcome string `json:"outcome"`
		Session string `json:"session"`
		Why     string `json:"why"`
	} `json:"resume"`
}

func (e *Env) resumeView(repo, name string) resumeView {
	e.t.Helper()
	out := e.MustOwt(repo, "status", name, "--json")
	var v resumeView
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v
}

// idleWithSession starts a fake Claude on task and waits until it took
// it, finished its turn, and its hooks named its session; the id.
func (e *Env) idleWithSession(repo, name, task string) string {
	e.t.Helper()
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", name, task)
	e.WaitPrompts(name, 1)
	var session string
	e.Eventually(30*time.Second, name+" idle with its session id recorded", func() bool {
		v := e.resumeView(repo, name)
		session = v.AgentSession
		return v.Status == "idle" && session != ""
	})
	start, ok := e.Start(name)
	require.True(e.t, ok)
	require.Equal(e.t, start.SessionID, session, "the session id is the one the tool's hooks sent")
	return session
}

// newServer starts the tmux server again after a kill (as a reboot, or
// tmux started by hand), with the status bar placeholder, and runs the
// plugin's init as tmux's config would.
func (e *Env) newServer(repo string) {
	e.t.Helper()
	e.Eventually(10*time.Second, "a new tmux server on the socket", func() bool {
		_, err := e.TryTmux("-f", "/dev/null", "new-session", "-d", "-s", "harness", "-x", "200", "-y", "50")
		return err == nil
	})
	e.Tmux("set-option", "-g", "status-right", "#{owt_status} |")
	e.MustOwt(repo, "tmux", "init")
}

// statusRight is the status-right the bar shows now, formats expanded.
func (e *Env) statusRight() string {
	e.t.Helper()
	return e.Tmux("display-message", "-p", "-t", "harness:", e.Tmux("show-option", "-gv", "status-right"))
}

func (e *Env) eventsOfKind(name, kind string) []fixture.AgentEvent {
	var out []fixture.AgentEvent
	for _, ev := range e.Events() {
		if ev.Event == kind && ev.Agent == name {
			out = append(out, ev)
		}
	}
	return out
}

func TestRestoreResumesEachAgentsConversationOnce(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	names := []string{"alpha", "beta", "gamma"}
	sessions := map[string]string{}
	for _, n := range names {
		sessions[n] = e.idleWithSession(repo, n, "Task "+n)
	}
	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	e.newServer(repo)

	// The bar says there are agents to bring back.
	require.Equal(t, "#[fg=white,bg=magenta,bold] ⟲ 3 #[default]", e.Tmux("show-option", "-gqv", "@owt-restore"))
	require.Contains(t, e.statusRight(), "⟲ 3")

	// --dry-run says what it would do and starts nothing.
	dry := e.MustOwt(repo, "restore", "--dry-run")
	for _, n := range names {
		require.Contains(t, dry, n+": would resume claude session "+sessions[n])
		require.Len(t, e.agentStarts(n), 1, "dry run: nothing started")
	}

	// Two restores at once: each agent comes back once.
	var wg sync.WaitGroup
	results := make([]fixture.Result, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.Owt(repo, "restore")
		}()
	}
	wg.Wait()
	for _, r := range results {
		require.Zero(t, r.Code, r.Stdout+r.Stderr)
	}
	both := results[0].Stdout + results[1].Stdout
	for _, n := range names {
		require.Contains(t, both, n+": resumed claude session "+sessions[n], both)
		require.Equal(t, 1, strings.Count(both, n+": resumed"), "one of the two restores brought it back: %s", both)
		require.Contains(t, both, n+": running: its session", "the other found it running: %s", both)

		starts := e.agentStarts(n)
		require.Len(t, starts, 2, "started once more, not twice")
		require.Equal(t, sessions[n], starts[1].SessionID, "on its own session")
		require.True(t, slices.Contains(starts[1].Argv, "--resume"), "with Claude's resume option: %q", starts[1].Argv)
		require.Equal(t, sessions[n], starts[1].Argv[slices.Index(starts[1].Argv, "--resume")+1])
		require.Len(t, e.eventsOfKind(n, "resume"), 1)
		require.Equal(t, []string{"Task " + n}, e.Prompts(n), "the task is not sent again")
		require.Equal(t, starts[0].Cwd, starts[1].Cwd, "in the same worktree")

		v := e.resumeView(repo, n)
		require.True(t, v.Live)
		require.NotNil(t, v.Resume)
		require.Equal(t, "resumed", v.Resume.Outcome)
		require.Equal(t, sessions[n], v.AgentSession)
	}
	require.Empty(t, e.Tmux("show-option", "-gqv", "@owt-restore"), "nothing left to restore")
	require.NotContains(t, e.statusRight(), "⟲")

	// Again: nothing is duplicated.
	again := e.MustOwt(repo, "restore")
	for _, n := range names {
		require.Contains(t, again, n+": running: its session")
		require.Len(t, e.agentStarts(n), 2)
	}

	// The conversation goes on: a message reaches the resumed agent,
	// whose hooks still name the same session.
	e.MustOwt(repo, "send", "alpha", "And now the tests")
	e.WaitPrompts("alpha", 2)
	e.Eventually(20*time.Second, "alpha idle again", func() bool { return e.resumeView(repo, "alpha").Status == "idle" })
	require.Equal(t, sessions["alpha"], e.resumeView(repo, "alpha").AgentSession)
}

// A resume the tool refuses (its session is gone) starts the agent fresh
// with its task and an account of the work in its worktree, and says so;
// an agent the user deleted stays deleted.
func TestRestoreStartsFreshWithAnAccountWhenTheToolCannotResume(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	session := e.idleWithSession(repo, "fixer", "!write notes.txt done\n!commit add notes; rm -rf $HOME `id`\n!write wip.txt half")
	e.idleWithSession(repo, "gone", "Task gone")
	e.MustOwt(repo, "delete", "gone", "--force")

	transcripts, _ := filepath.Glob(filepath.Join(e.Home, ".claude", "projects", "*", session+".jsonl"))
	require.Len(t, transcripts, 1, "the fake keeps its session where Claude Code does")
	e.idleWithSession(repo, "later", "Task later")
	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	require.NoError(t, os.Remove(transcripts[0]), "the session is gone: Claude cannot resume it")
	e.newServer(repo)
	require.Contains(t, e.statusRight(), "⟲ 2", "the deleted agent is not counted")
	// One deleted while lost: the mark counts it no more, restore leaves it deleted.
	e.MustOwt(repo, "delete", "later", "--force")
	require.Contains(t, e.statusRight(), "⟲ 1")

	out := e.MustOwt(repo, "restore", "--json")
	var res []struct{ Name, Action, Why, Session string }
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	require.Len(t, res, 1, "the deleted agent stays deleted: %s", out)
	require.Equal(t, "fixer", res[0].Name)
	require.Equal(t, "fresh", res[0].Action, out)
	require.Contains(t, res[0].Why, "No conversation found with session ID: "+session)
	require.Empty(t, res[0].Session)

	require.Len(t, e.eventsOfKind("fixer", "resume_failed"), 1, "the resume was tried")
	prompts := e.WaitPrompts("fixer", 2)
	fresh := prompts[1]
	require.Contains(t, fresh, "could not be resumed")
	require.Contains(t, fresh, "add notes; rm -rf $HOME `id`", "the account names its commit")
	require.Contains(t, fresh, "wip.txt", "and its uncommitted file")
	require.Contains(t, fresh, "Your task:\n!write notes.txt done")
	require.FileExists(t, filepath.Join(e.agentStarts("fixer")[0].Cwd, "wip.txt"), "the work is kept")
	require.Len(t, e.agentStarts("gone"), 1, "the deleted agent was not started again")
	require.Len(t, e.agentStarts("later"), 1, "the deleted agent was not started again")

	v := e.resumeView(repo, "fixer")
	require.Equal(t, "fresh", v.Resume.Outcome)
	e.Eventually(20*time.Second, "the new session's id recorded, the agent idle (not left exited by the refused resume's SessionEnd)", func() bool {
		v := e.resumeView(repo, "fixer")
		return v.AgentSession != "" && v.AgentSession != session && v.Status == "idle"
	})
	// Issue 32 item 13: the refused resume's SessionEnd is no exit of the
	// agent, which owt started again at once: no "exited" notice.
	require.Zero(t, e.notices("owt: fixer exited"), "owt.log:\n%s", e.OwtLog())
}

// The plugin's key: Alt+r opens a popup that runs owt restore --all and
// shows each agent as it comes back; the mark on the bar goes.
func TestRestoreKeyRunsRestoreInAPopup(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	session := e.idleWithSession(repo, "solo", "Task solo")
	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	e.newServer(repo)
	require.Contains(t, e.statusRight(), "⟲ 1")
	b := e.binding("root", "M-r")
	require.Contains(t, b, "display-popup -E")
	require.Contains(t, b, owtBin+" restore --all --popup")

	_, term := e.attach("harness")
	_, err := term.pty.Write([]byte("\x1br")) // Alt+r
	require.NoError(t, err)
	e.Eventually(30*time.Second, "solo resumed", func() bool {
		v := e.resumeView(repo, "solo")
		return v.Resume != nil && v.Resume.Outcome == "resumed"
	})
	require.Equal(t, session, e.agentStarts("solo")[1].SessionID)
	e.Eventually(10*time.Second, "the mark gone from the bar", func() bool { return !strings.Contains(e.statusRight(), "⟲") })
	e.Eventually(10*time.Second, "the popup waits for Enter", func() bool {
		return processRunning(e, "restore --all --popup")
	})
	_, err = term.pty.Write([]byte("\r"))
	require.NoError(t, err)
	e.waitNoProcess("restore --all --popup")

	// The same command in a pane shows what it did, one line per agent.
	p := e.pane(repo, owtBin, "restore", "--all", "--popup")
	screen := e.WaitScreen(p, "Press Enter to close.")
	require.Contains(t, screen, "solo: running: its session")
	e.keys(p, "Enter")
	e.waitClosed(p)
}

func processRunning(e *Env, words string) bool {
	for _, pid := range e.WorldProcesses() {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err == nil && strings.Contains(strings.ReplaceAll(string(data), "\x00", " "), words) {
			return true
		}
	}
	return false
}

// Bad input: one line on stderr, exit 2, nothing changed; nothing to
// restore is said so. (Inside a tmux pane: TestRestoreKeyRunsRestoreInAPopup.)
func TestRestoreUsageErrors(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	r := e.Owt(repo, "restore", "extra")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "restore takes no arguments")
	r = e.Owt(repo, "restore", "--wait", "-1s")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Equal(t, "no agents to restore\n", e.MustOwt(repo, "restore"))
}

// owt doctor --fix and owt attach (Alt+s on a lost session goes the same
// way) bring an agent back on its own conversation too, not a bare shell.
func TestDoctorFixAndAttachResumeTheAgent(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	sessions := map[string]string{"p": e.idleWithSession(repo, "p", "Task p"), "q": e.idleWithSession(repo, "q", "Task q")}
	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	e.newServer(repo)

	r := e.Owt(repo, "doctor", "--fix", "--json")
	rep := doctorJSON(t, r.Stdout)
	require.ElementsMatch(t, []string{"worktree-without-session p", "worktree-without-session q"}, rep.kinds(true), r.Stdout)
	require.Contains(t, r.Stdout, "started its agent again on its own conversation")
	for n, s := range sessions {
		e.Eventually(30*time.Second, n+" resumed", func() bool {
			v := e.resumeView(repo, n)
			return v.Resume != nil && v.Resume.Outcome == "resumed"
		})
		starts := e.agentStarts(n)
		require.Len(t, starts, 2)
		require.Equal(t, s, starts[1].SessionID)
		require.Len(t, e.Prompts(n), 1, "the task is not sent again")
	}

	// A session lost on a running server: attach brings p back, resumed.
	client := e.AttachClient("harness")
	p := e.Find(repo, "p")
	e.Tmux("kill-session", "-t", p.Session)
	inside := []string{"TMUX=" + e.Socket + ",1,0"}
	r = e.OwtIn(repo, inside, "", "attach", "p")
	require.Equal(t, 0, r.Code, r.Stderr)
	e.Eventually(10*time.Second, "client on p's new session", func() bool { return e.ClientSession(client) == p.Session })
	e.Eventually(30*time.Second, "p started a third time on its session", func() bool {
		starts := e.agentStarts("p")
		return len(starts) == 3 && starts[2].SessionID == sessions["p"]
	})
	require.Len(t, e.Prompts("p"), 1)
	require.Len(t, e.agentStarts("q"), 2, "q untouched")
}

// Codex names its session in its notify payload (thread-id); owt restore
// starts it again with `codex resume ID`.
func TestRestoreResumesCodexByItsThreadID(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "codex", "--no-setup", "--name", "cx", "Task cx")
	e.WaitPrompts("cx", 1)
	var session string
	e.Eventually(30*time.Second, "cx idle with its thread id", func() bool {
		v := e.resumeView(repo, "cx")
		session = v.AgentSession
		return v.Status == "idle" && session != ""
	})
	start, _ := e.Start("cx")
	require.Equal(t, start.SessionID, session)
	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()

	// After a reboot, from a plain shell: no tmux server runs yet.
	_, err := e.TryTmux("list-sessions")
	require.Error(t, err)
	out := e.MustOwt(repo, "restore")
	require.True(t, e.Find(repo, "cx").Live, "its session is on the server owt started")
	require.Contains(t, out, "cx: resumed codex session "+session)
	starts := e.agentStarts("cx")
	require.Len(t, starts, 2)
	i := slices.Index(starts[1].Argv, "resume")
	require.GreaterOrEqual(t, i, 0, "%q", starts[1].Argv)
	require.Equal(t, session, starts[1].Argv[i+1])
	require.Equal(t, session, starts[1].SessionID)
	require.Len(t, e.Prompts("cx"), 1, "the task is not sent again")
}

// A tool with no session to resume (OpenCode lists none; Aider has no
// resume option) starts fresh with its task and the account, and says
// why.
func TestRestoreStartsToolsWithoutASessionFresh(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	for _, tool := range []string{"opencode", "aider"} {
		e.MustOwt(repo, "new", "--tool", tool, "--no-setup", "--name", tool, "Task "+tool)
		e.WaitPrompts(tool, 1)
	}
	// An agent you quit before the server went is not started again.
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "quit", "!exit 3")
	e.Eventually(30*time.Second, "quit exited with code 3", func() bool {
		it := e.Find(repo, "quit")
		return it.Status == "exited" && it.ExitCode != nil && *it.ExitCode == 3
	})
	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	e.newServer(repo)

	dry := e.MustOwt(repo, "restore", "--dry-run")
	require.Contains(t, dry, "opencode: would start opencode fresh with its task and an account of its work (no session id of opencode was recorded for it)")
	require.Contains(t, dry, "aider: would start aider fresh with its task and an account of its work (aider cannot resume a session by id)")
	out := e.MustOwt(repo, "restore")
	require.Contains(t, out, "opencode: started opencode fresh")
	require.Contains(t, out, "aider: started aider fresh")
	for _, tool := range []string{"opencode", "aider"} {
		prompts := e.WaitPrompts(tool, 2)
		require.Contains(t, prompts[1], "could not be resumed")
		require.Contains(t, prompts[1], "Your task:\nTask "+tool)
		require.Len(t, e.agentStarts(tool), 2)
	}
	require.NotEmpty(t, e.eventsOfKind("", "session_list"), "owt asked OpenCode for its sessions")
	require.Contains(t, out, "quit: exited: its agent had ended by itself (exit code 3)")
	require.Len(t, e.agentStarts("quit"), 1)
}

// Gemini CLI's hooks send session_id; owt restore starts it with
// --resume ID.
func TestRestoreResumesGeminiByItsHookSession(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "gemini", "--no-setup", "--name", "gm", "Task gm")
	e.WaitPrompts("gm", 1)
	var session string
	e.Eventually(30*time.Second, "gm idle with its session id", func() bool {
		v := e.resumeView(repo, "gm")
		session = v.AgentSession
		return v.Status == "idle" && session != ""
	})
	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	e.newServer(repo)

	out := e.MustOwt(repo, "restore")
	require.Contains(t, out, "gm: resumed gemini session "+session)
	starts := e.agentStarts("gm")
	require.Len(t, starts, 2)
	require.Equal(t, session, starts[1].Argv[slices.Index(starts[1].Argv, "--resume")+1])
	require.Equal(t, session, starts[1].SessionID)
	require.Len(t, e.Prompts("gm"), 1, "the task is not sent again")
}

// owt restore killed (kill -9) midway: what it started runs, the rest is
// still lost, and the next restore brings back exactly those.
func TestRestoreKilledMidwayIsFinishedByTheNext(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	names := []string{"k1", "k2", "k3", "k4"}
	for _, n := range names {
		e.idleWithSession(repo, n, "Task "+n)
	}
	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	e.newServer(repo)

	cmd := exec.Command(owtBin, "restore")
	cmd.Dir = repo
	cmd.Env = e.Environ()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	read := bufio.NewScanner(stdout)
	for read.Scan() && !strings.HasPrefix(read.Text(), "k2: starting") {
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	out := e.MustOwt(repo, "restore")
	require.Contains(t, out, "k1: running: its session")
	require.Contains(t, out, "k2: running: its session")
	for _, n := range names {
		require.Len(t, e.agentStarts(n), 2, "%s started once more, no more: %s", n, out)
		require.True(t, e.Find(repo, n).Live)
		require.Len(t, e.Prompts(n), 1)
	}

	// Killed between starting k1's session and recording it: the record
	// has no session, the session runs. The next restore records it
	// (its environment and its owt _run pane prove it owt's), starts
	// nothing.
	e.forgetSession(repo, "k1")
	require.False(t, e.Find(repo, "k1").Live)
	out = e.MustOwt(repo, "restore")
	require.Contains(t, out, "k1: running: ", out)
	require.Contains(t, out, "recorded again", out)
	require.True(t, e.Find(repo, "k1").Live)
	require.Len(t, e.agentStarts("k1"), 2)
}

// forgetSession takes the session out of name's record, as a restart
// killed before it saved the session leaves it.
func (e *Env) forgetSession(repo, name string) {
	e.t.Helper()
	for _, r := range e.allRecords() {
		if r["name"] != name || r["repo"] == nil || !strings.Contains(repo, filepath.Base(r["repo"].(string))) {
			continue
		}
		e.editRecord(filepath.Base(r["repo"].(string))+"-*.json", name, func(r map[string]any) {
			delete(r, "session_id")
			delete(r, "pane")
		})
		return
	}
	e.t.Fatalf("no record %s", name)
}

// Alt+s on an agent whose session was lost: the switch popup brings it
// back on its own conversation and goes there.
func TestSwitchPopupResumesALostAgent(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("app")
	session := e.idleWithSession(repo, "sw", "Task sw")
	sw := e.Find(repo, "sw")
	client, _ := e.attach("harness")
	e.Tmux("kill-session", "-t", sw.Session)
	e.Eventually(10*time.Second, "sw's session gone", func() bool { return !e.Find(repo, "sw").Live })

	p := e.pane(repo, owtBin, "popup", "switch")
	e.WaitScreen(p, "1/1")
	e.keys(p, "Enter")
	e.Eventually(20*time.Second, "the client on sw's new session", func() bool { return e.ClientSession(client) == sw.Session })
	e.Eventually(30*time.Second, "sw resumed", func() bool {
		v := e.resumeView(repo, "sw")
		return v.Resume != nil && v.Resume.Outcome == "resumed"
	})
	starts := e.agentStarts("sw")
	require.Len(t, starts, 2)
	require.Equal(t, session, starts[1].SessionID)
	require.Len(t, e.Prompts("sw"), 1, "the task is not sent again")
}
