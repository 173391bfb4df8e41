package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/usage"
)

// Issue 21 with the real Claude Code (2.1.330): its hooks name its
// session (session_id); after the tmux server died, owt restore starts it
// with --resume ID and it takes the conversation up (its earlier turn on
// screen, no new one); a session whose transcript is gone makes it say
// "No conversation found with session ID" and exit, and owt starts it
// fresh with the task and the account, saying why.
func TestRealClaudeResumesItsConversationAfterTheServerDied(t *testing.T) {
	e := realEnv(t, "claude")
	api := startFakeModelAPI(t)
	repo := e.NewRepo("app")
	const key = "sk-ant-owt-test-not-a-real-key-0123456789"
	realClaudeHome(t, e, key, repo)
	e.setWorld("ANTHROPIC_API_KEY", key)
	e.setWorld("ANTHROPIC_BASE_URL", api.URL)

	sessions := map[string]string{}
	for _, n := range []string{"keep", "lost"} {
		e.newReal(repo, n, "claude", "say hi from "+n)
		e.Eventually(90*time.Second, n+" idle with its session recorded", func() bool {
			v := e.resumeView(repo, n)
			sessions[n] = v.AgentSession
			return v.Status == "idle" && v.AgentSession != ""
		})
		require.True(t, api.got("say hi from "+n))
	}
	var lost []string
	e.Eventually(30*time.Second, "Claude keeps the session where owt expects it", func() bool {
		lost, _ = filepath.Glob(filepath.Join(e.Home, ".claude", "projects", "*", sessions["lost"]+".jsonl"))
		return len(lost) == 1
	})

	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	require.NoError(t, os.Remove(lost[0]))
	e.newServer(repo)
	for _, kv := range [][2]string{{"PATH", e.Var("PATH")}, {"DISABLE_AUTOUPDATER", "1"}, {"ANTHROPIC_API_KEY", key}, {"ANTHROPIC_BASE_URL", api.URL}} {
		e.Tmux("set-environment", "-g", kv[0], kv[1])
	}

	out := e.MustOwt(repo, "restore", "--wait", "2m")
	require.Contains(t, out, "keep: resumed claude session "+sessions["keep"], out)
	require.Contains(t, out, "lost: started claude fresh with its task and an account of its work", out)
	require.Contains(t, out, "No conversation found with session ID: "+sessions["lost"], out)

	keep := e.Find(repo, "keep")
	argv, _ := e.agentProcess("--resume\x00" + sessions["keep"])
	require.Equal(t, sessions["keep"], argWith(t, argv, "--resume"))
	e.seeOnScreen(keep.Session, "say hi from keep") // the conversation, shown again
	require.NotContains(t, e.Capture("="+keep.Session+":"), "could not be resumed", "not a fresh start")

	// The fresh one got its task with the account (a model request).
	e.Eventually(90*time.Second, "lost's fresh turn reached the model", func() bool {
		return api.got("could not be resumed")
	})
	e.Eventually(60*time.Second, "lost's new session recorded", func() bool {
		s := e.resumeView(repo, "lost").AgentSession
		return s != "" && s != sessions["lost"]
	})
	require.Equal(t, "resumed", e.resumeView(repo, "keep").Resume.Outcome)
	require.True(t, strings.HasPrefix(e.resumeView(repo, "lost").Resume.Why, "claude exited with code 1"))
	// Issue 32 item 13: the refused resume's SessionEnd is no exit of the
	// agent, which owt started again at once: no "exited" notice.
	require.Zero(t, e.notices("owt: lost exited"), "owt.log:\n%s", e.OwtLog())
}

// The real Codex (0.169.0): its notify payload's thread-id is the id of
// its rollout (session_meta) and what `codex resume ID` takes; a rollout
// that is gone makes it refuse, and owt starts it fresh.
func TestRealCodexResumesByItsThreadID(t *testing.T) {
	e := realEnv(t, "codex")
	api := startFakeModelAPI(t)
	repo := e.NewRepo("app")
	codexWorld(t, e, api, repo, true)

	sessions := map[string]string{}
	for _, n := range []string{"cx", "cy"} {
		e.newReal(repo, n, "codex", "say hi from "+n)
		e.Eventually(90*time.Second, n+" idle with its thread id recorded", func() bool {
			v := e.resumeView(repo, n)
			sessions[n] = v.AgentSession
			return v.Status == "idle" && v.AgentSession != ""
		})
		require.Equal(t, sessions[n], usage.CodexSession(e.Var("CODEX_HOME"), e.Find(repo, n).Path, time.Time{}, time.Now()),
			"the notify's thread-id is its rollout's session id")
	}
	rollouts, _ := filepath.Glob(filepath.Join(e.Var("CODEX_HOME"), "sessions", "*", "*", "*", "rollout-*"+sessions["cy"]+".jsonl"))
	require.Len(t, rollouts, 1)

	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	e.killRealTools() // codex's background server outlives the tmux server
	require.NoError(t, os.Remove(rollouts[0]))
	e.newServer(repo)
	for _, k := range []string{"PATH", "DISABLE_AUTOUPDATER", "CODEX_HOME"} {
		e.Tmux("set-environment", "-g", k, e.Var(k))
	}
	defer func() {
		if t.Failed() {
			t.Log(e.OwtLog())
			t.Log(e.Capture("=" + e.Find(repo, "cy").Session + ":"))
			t.Log(e.MustOwt(repo, "status", "cy", "--json"))
		}
	}()

	out := e.MustOwt(repo, "restore", "--wait", "2m")
	require.Contains(t, out, "cx: resumed codex session "+sessions["cx"], out)
	require.Contains(t, out, "cy: started codex fresh with its task and an account of its work", out)
	argv, _ := e.agentProcess("resume\x00" + sessions["cx"])
	require.Equal(t, sessions["cx"], argWith(t, argv, "resume"))
	e.seeOnScreen(e.Find(repo, "cx").Session, "say hi from cx") // the conversation, shown again
	e.Eventually(90*time.Second, "cy's fresh turn reached the model", func() bool { return api.got("could not be resumed") })
	// Its thread index still names the rollout that is gone: "Error:
	// Failed to resume session from …" (an id it never had: "No saved
	// session found with ID …").
	require.Contains(t, e.resumeView(repo, "cy").Resume.Why, "codex exited with code 1: Error: Failed to resume session from")
}
