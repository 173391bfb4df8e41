package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// agentSession is the session id owt recorded for the agent called name.
func (e *Env) agentSession(repo, name string) string {
	e.t.Helper()
	out := e.MustOwt(repo, "status", name, "--json")
	var v struct {
		AgentSession string `json:"agent_session"`
	}
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v.AgentSession
}

// agentEnv is the environment owt gives the agent called name in repo,
// as its hooks see it: its session's OWT_NAME and OWT_REPO, and the id
// of its process (read from the state file, as nothing of owt's shows it).
func (e *Env) agentEnv(repo, name string) []string {
	e.t.Helper()
	real, _ := filepath.EvalSymlinks(repo)
	for _, r := range e.allRecords() {
		if r["name"] == name && (r["repo"] == repo || r["repo"] == real) {
			id, _ := r["agent_id"].(string)
			require.NotEmpty(e.t, id, "%s has an agent id", name)
			return []string{"OWT_NAME=" + name, "OWT_REPO=" + repo, "OWT_AGENT_ID=" + id}
		}
	}
	e.t.Fatalf("no record %s of %s in the state", name, repo)
	return nil
}

// otherClaude runs "claude -p" in dir the way a person does from a shell
// (env: what that shell has, e.g. the OWT_NAME of an agent's session): the
// fake claude runs the hooks configured there, as the real one does.
func (e *Env) otherClaude(dir string, env ...string) {
	e.t.Helper()
	cmd := exec.Command(filepath.Join(filepath.Dir(owtBin), "tools", "claude"), "-p", "is the build green?")
	cmd.Dir = dir
	cmd.Env = e.Environ(env...)
	out, err := cmd.CombinedOutput()
	require.NoError(e.t, err, string(out))
}

// requireUntouchedBy fails unless the agent called name still reads
// working, on its own session, with no notice about it from the monitor:
// what another claude in its folder did is not the agent's.
func (e *Env) requireUntouchedBy(repo, name, session, what string) {
	e.t.Helper()
	v := e.Status(repo, name)
	require.Equal(e.t, "working", v.Status, "%s: the agent still works (source %s); owt.log:\n%s", what, v.Source, e.OwtLog())
	require.Equal(e.t, session, e.agentSession(repo, name), "%s: the recorded session is the agent's own", what)
	// A notice would follow the status change at once (the hook rings
	// the monitor); give it that moment.
	time.Sleep(2 * time.Second)
	for _, l := range e.LogLines("monitor") {
		require.False(e.t, strings.Contains(l, name+" finished its turn") || strings.Contains(l, name+" exited"),
			"%s: no notice about the agent: %s", what, l)
	}
	require.Equal(e.t, "working", e.Status(repo, name).Status, what)
}

// A second claude in an agent's worktree runs the same hooks; they act
// only for the agent's process. So for a person's (even started from a
// shell of the agent's own session, so with its OWT_NAME), and for a
// "claude -p" the agent runs from its Bash tool (a second opinion), which
// inherits the agent's OWT_AGENT_ID but is a session of its own: its
// SessionEnd is not the agent exiting, nor its session the agent's. One
// world: the agent is untouched after each, so each next one meets the
// same agent.
func TestAnotherClaudeInAWorktreeIsNotItsAgent(t *testing.T) {
	e, repo := statusEnv(t, "")
	it := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "a", "!sleep 90s")
	e.WaitStatusFrom(repo, "a", "working", "hook", 20*time.Second)
	var session string
	e.Eventually(10*time.Second, "the agent's session recorded", func() bool {
		session = e.agentSession(repo, "a")
		return session != ""
	})

	e.otherClaude(it.Path, "OWT_NAME=a", "OWT_REPO="+repo)
	e.requireUntouchedBy(repo, "a", session, "claude -p from a shell of the agent's session")
	e.otherClaude(it.Path)
	e.requireUntouchedBy(repo, "a", session, "claude -p from any shell")
	e.otherClaude(it.Path, e.agentEnv(repo, "a")...)
	e.requireUntouchedBy(repo, "a", session, "claude -p run by the agent itself")
}

// The same in place: owt's hooks in the user's own checkout fire for the
// user's own claude there, which is not the agent.
func TestAnotherClaudeInAnInPlaceCheckoutIsNotItsAgent(t *testing.T) {
	e, repo := inPlaceRepo(t)
	inPlace(t, e, repo, "p", "!sleep 90s")
	e.WaitStatusFrom(repo, "p", "working", "hook", 20*time.Second)
	var session string
	e.Eventually(10*time.Second, "the agent's session recorded", func() bool {
		session = e.agentSession(repo, "p")
		return session != ""
	})

	e.otherClaude(repo)
	e.requireUntouchedBy(repo, "p", session, "the user's own claude -p in the checkout")
}

// Issue 32 item 13: Claude's idle_prompt notification, a while after a
// turn failed on its login ("Not logged in · Please run /login", which
// the screen reads as needs you: login), says nothing new: no second
// "turn failed" and no second "needs you: login".
func TestIdlePromptAfterAFailedTurnRepeatsNothing(t *testing.T) {
	e, repo := statusEnv(t, "")
	e.Tmux("set-environment", "-g", "OWT_FAKE_IDLE_NOTIFY", "4s")
	newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "f", "fix it\n!fail Not logged in · Please run /login")
	e.Eventually(20*time.Second, "the failed turn's notice and the login's", func() bool {
		return e.notices("owt: f's turn failed") == 1 && e.notices("owt: f needs you: claude asks for a login") == 1
	})
	e.Eventually(20*time.Second, "Claude's idle_prompt notification", func() bool {
		for _, ev := range e.Events() {
			if ev.Event == "hook" && ev.Agent == "f" && ev.Name == "Notification" {
				return true
			}
		}
		return false
	})
	time.Sleep(3 * time.Second) // the monitor's next looks
	require.Equal(t, 1, e.notices("owt: f's turn failed"), "owt.log:\n%s", e.OwtLog())
	require.Equal(t, 1, e.notices("owt: f needs you"), "owt.log:\n%s", e.OwtLog())
	require.Equal(t, "waiting", e.Status(repo, "f").Status)
}

// Issue 32 item 13: a resume the tool refuses (Claude Code fires
// SessionEnd as it exits on a session it cannot find) is no exit of the
// agent, which owt starts fresh at once: no "exited" notice.
func TestRefusedResumeSaysNoExited(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	session := e.idleWithSession(repo, "p", "Task p")
	transcripts, _ := filepath.Glob(filepath.Join(e.Home, ".claude", "projects", "*", session+".jsonl"))
	require.Len(t, transcripts, 1)
	require.NoError(t, os.Remove(transcripts[0]), "the session is gone: Claude cannot resume it")

	// A session lost on a running server, whose monitor watches p.
	client := e.AttachClient("harness")
	p := e.Find(repo, "p")
	e.Eventually(10*time.Second, "a monitor", func() bool { return e.MonitorPID() != 0 })
	time.Sleep(2 * time.Second) // the monitor has looked at p
	e.Tmux("kill-session", "-t", p.Session)
	e.Eventually(20*time.Second, "p lost", func() bool { return !e.resumeView(repo, "p").Live })
	e.WaitStatus(repo, "p", "exited", 20*time.Second)
	time.Sleep(3 * time.Second) // the monitor's notice of the lost session, if any, is out
	before := e.notices("owt: p exited")
	// Past the monitor's look each second: the gap between the refused
	// resume's SessionEnd and its exit (Claude Code's is ~0.2 s, then
	// the runner's).
	e.Tmux("set-environment", "-g", "OWT_FAKE_RESUME_LINGER", "1500ms")

	inside := []string{"TMUX=" + e.Socket + ",1,0"}
	r := e.OwtIn(repo, inside, "", "attach", "p")
	require.Equal(t, 0, r.Code, r.Stderr)
	e.Eventually(10*time.Second, "client on p's new session", func() bool { return e.ClientSession(client) == p.Session })
	e.Eventually(30*time.Second, "p started fresh", func() bool {
		v := e.resumeView(repo, "p")
		return v.Resume != nil && v.Resume.Outcome == "fresh" && len(e.Prompts("p")) == 2
	})
	require.Len(t, e.eventsOfKind("p", "resume_failed"), 1, "the resume was tried")
	time.Sleep(3 * time.Second) // the monitor's next looks
	require.Equal(t, before, e.notices("owt: p exited"), "owt.log:\n%s", e.OwtLog())
}

// Issue 32 item 12: Esc before Claude's first answer leaves no mark on
// its screen, and fires no hook: the turn its UserPromptSubmit hook
// started never got its Stop. That is an interrupted turn, not a
// finished one: no "finished its turn".
func TestEscBeforeClaudesFirstAnswerIsNoFinishedTurn(t *testing.T) {
	e, repo := statusEnv(t, "[status]\nstill_after = \"2s\"\n")
	it := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "a", "!think 60s")
	e.WaitScreen(it.Session, "esc to interrupt")
	e.WaitStatusFrom(repo, "a", "working", "hook", 10*time.Second)
	e.WaitScreen(it.Session, "(3s · esc to interrupt)") // the monitor has read the turn

	e.Tmux("send-keys", "-t", it.Session, "Escape")
	e.Eventually(10*time.Second, "the prompt back in the input box", func() bool {
		return !strings.Contains(e.Capture(it.Session), "esc to interrupt")
	})
	require.NotContains(t, e.Capture(it.Session), "Interrupted", "no mark on screen")
	v := e.WaitStatus(repo, "a", "idle", 20*time.Second)
	require.Equal(t, "screen", v.Source, "no hook fired: the screen said it")
	require.Empty(t, e.HookRuns("a", "Stop"), "Esc fires no Stop hook")
	require.Contains(t, e.MustOwt(repo, "status", "a"), "idle (interrupted)")
	time.Sleep(2 * time.Second) // the monitor's next looks
	require.Zero(t, e.notices("owt: a finished its turn"), "owt.log:\n%s", e.OwtLog())
}

// Issue 32 item 12, Gemini CLI: its AfterAgent hook fires after an Esc
// too, under its "ℹ Request cancelled.": an interrupted turn, not a
// finished one.
func TestGeminiAfterAgentAfterEscIsNoFinishedTurn(t *testing.T) {
	e, repo := statusEnv(t, "")
	it := newJSON(t, e, repo, "--tool", "gemini", "--no-setup", "--name", "g", "!sleep 60s")
	e.WaitScreen(it.Session, "esc to cancel")
	e.WaitStatusFrom(repo, "g", "working", "hook", 10*time.Second)
	e.WaitScreen(it.Session, "esc to cancel, 3s") // the monitor has read the turn

	e.Tmux("send-keys", "-t", it.Session, "Escape")
	e.WaitScreen(it.Session, "Request cancelled.")
	e.Eventually(10*time.Second, "the AfterAgent hook after the Esc", func() bool { return len(e.HookRuns("g", "AfterAgent")) == 1 })
	e.WaitStatus(repo, "g", "idle", 10*time.Second)
	e.Eventually(10*time.Second, "idle (interrupted)", func() bool {
		return strings.Contains(e.MustOwt(repo, "status", "g"), "idle (interrupted)")
	})
	time.Sleep(2 * time.Second) // the monitor's next looks
	require.Zero(t, e.notices("owt: g finished its turn"), "owt.log:\n%s", e.OwtLog())
}

// Issue 32 item 12 with the real Claude Code: Esc before its first
// answer (the model has said nothing yet) leaves no mark on its screen
// and fires no hook; owt reads idle (interrupted), with no "finished its
// turn".
func TestRealClaudeEscBeforeItsFirstAnswerIsNoFinishedTurn(t *testing.T) {
	e := realEnv(t, "claude")
	api := startFakeModelAPI(t)
	repo := e.NewRepo("app")
	const key = "sk-ant-owt-test-not-a-real-key-0123456789"
	realClaudeHome(t, e, key, repo)
	e.setWorld("ANTHROPIC_API_KEY", key)
	e.setWorld("ANTHROPIC_BASE_URL", api.URL)
	canary := e.startCanary(repo)
	rec := e.recordStatuses(repo)

	s := e.newReal(repo, "q", "claude", "hold on")
	notStopped := func(st seenStatus) bool {
		return st.Status == "starting" || st.Status == "working" && st.TurnError == ""
	}
	e.await(rec, "q", 0, seenStatus{Status: "working"}, notStopped)
	e.seeOnScreen(s, "esc to interrupt")
	e.Eventually(30*time.Second, "the model was asked", func() bool { return api.got("hold on") })
	e.noticeBarrier(repo, canary) // the monitor has read the running turn
	from := rec.mark("q")
	e.press(s, "Escape")
	e.await(rec, "q", from, seenStatus{Status: "idle", Interrupted: true}, func(st seenStatus) bool {
		return notStopped(st) || st.Status == "idle" && st.Interrupted
	})
	t.Logf("the screen after Esc:\n%s", e.Capture("="+s+":"))
	e.noticeBarrier(repo, canary)
	require.Zero(t, e.notices("owt: q finished its turn"), "Esc is no finished turn")
}

// The agent's own session changes (Claude Code's /clear, a resume, a
// plan approved with its context cleared): events of the new session,
// carrying the agent's id, are still the agent's. Only a session begun
// while the agent works on a turn (a tool it runs itself) is another's.
func TestAgentsNewSessionAfterClearIsStillTheAgent(t *testing.T) {
	e, repo := statusEnv(t, "")
	it := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "a", "hello")
	e.WaitStatus(repo, "a", "idle", 20*time.Second)
	var session string
	e.Eventually(10*time.Second, "the agent's session recorded", func() bool {
		session = e.agentSession(repo, "a")
		return session != ""
	})
	cmds := fixture.HookCommands(t, filepath.Join(it.Path, ".claude", "settings.local.json"))
	env := e.agentEnv(repo, "a")
	fire := func(event, sid string, extra map[string]any) {
		ev := map[string]any{"session_id": sid, "cwd": it.Path, "hook_event_name": event, "transcript_path": "/dev/null"}
		for k, v := range extra {
			ev[k] = v
		}
		require.Len(t, cmds[event], 1, event)
		e.RunHook(t, it.Path, cmds[event][0], ev, env...)
	}
	// /clear at the idle prompt, then a task: the new session's turn.
	fire("UserPromptSubmit", "cleared-1", map[string]any{"prompt": "go"})
	require.Equal(t, "working", e.Status(repo, "a").Status, "the agent's turn in its new session")
	require.Equal(t, "cleared-1", e.agentSession(repo, "a"))
	fire("Stop", "cleared-1", nil)
	require.Equal(t, "idle", e.Status(repo, "a").Status)
	// A plan approved with its context cleared: the agent waited, then
	// works on in a new session.
	fire("UserPromptSubmit", "cleared-1", map[string]any{"prompt": "plan it"})
	fire("PermissionRequest", "cleared-1", nil)
	require.Equal(t, "waiting", e.Status(repo, "a").Status)
	fire("PreToolUse", "cleared-2", nil)
	require.Equal(t, "working", e.Status(repo, "a").Status, "the agent's work after its plan, in a new session")
	fire("Stop", "cleared-2", nil)
	require.Equal(t, "idle", e.Status(repo, "a").Status)
}
