package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// statusEnv is an env for the status tests: its monitor must go with its
// server, and a repo with a short still_after.
func statusEnv(t *testing.T, owtToml string) (*Env, string) {
	e := NewEnv(t)
	e.KillServerExpectMonitorGone()
	repo := e.NewRepo("app")
	if owtToml != "" {
		e.WriteFile(repo, ".owt.toml", owtToml)
		e.Git(repo, "add", ".owt.toml")
		e.Git(repo, "commit", "-q", "-m", "owt config")
	}
	return e, repo
}

func TestHooksReportPermissionApprovalAndTurnEnd(t *testing.T) {
	e, repo := statusEnv(t, "")
	it := newJSON(t, e, repo, "--tool", "claude", "--name", "a", "!ask make test\n!sleep 3s")

	// The permission prompt: PermissionRequest and Notification hooks.
	r := e.Owt(repo, "wait", "a", "--until", "waiting", "--timeout", "20s")
	require.Equal(t, 0, r.Code, r.Stderr)
	v := e.Status(repo, "a")
	require.Equal(t, "hook", v.Source)
	require.Contains(t, strings.Join(v.Lines, "\n"), "Do you want to proceed?", "owt status shows the pane's last lines")
	e.requireStatusOption(it.Session, "waiting")

	// Approval: the tool runs (PostToolUse) and goes on working.
	e.Tmux("send-keys", "-t", it.Session, "1")
	e.WaitStatusFrom(repo, "a", "working", "hook", 10*time.Second)
	e.requireStatusOption(it.Session, "working")

	// Turn end: Stop.
	r = e.Owt(repo, "wait", "a", "--timeout", "20s", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var res []struct {
		Name, Status string
		Reached      bool
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res))
	require.Equal(t, []struct {
		Name, Status string
		Reached      bool
	}{{"a", "idle", true}}, res)
	require.Equal(t, "hook", e.Status(repo, "a").Source)
	e.requireStatusOption(it.Session, "idle")

	// Every owt hook ran, printed nothing, exited 0; the log has no
	// complaint. They ran owt hook, as the hook settings owt wrote
	// say: every status above came through it.
	for _, ev := range []string{"UserPromptSubmit", "PreToolUse", "PermissionRequest", "Notification", "PostToolUse", "Stop"} {
		runs := e.HookRuns("a", ev)
		require.NotEmpty(t, runs, ev)
		for _, run := range runs {
			require.Equal(t, 0, run.Exit, "%s: %s", ev, run.Command)
			require.Contains(t, run.Command, owtBin+" hook claude "+ev)
		}
	}
	require.Empty(t, e.LogLines("hook"))

	// owt wait: a timeout says who did not get there (exit 1), bad use is 2.
	r = e.Owt(repo, "wait", "a", "--until", "waiting", "--timeout", "1s")
	requireOneLineError(t, r, "a is idle")
	require.Equal(t, 1, r.Code)
	require.Equal(t, 2, e.Owt(repo, "wait", "a", "--until", "soon").Code)
	require.Equal(t, 3, e.Owt(repo, "wait", "nosuch").Code, "no such worktree")
	require.Equal(t, 2, e.Owt(repo, "wait").Code)
	require.Equal(t, 0, e.Owt(repo, "wait", "a", "--until", "any").Code)
}

func TestEscFiresNoHookButTheScreenMakesItIdle(t *testing.T) {
	// still_after far beyond the wait below: the interrupt mark alone
	// makes it idle, not a pane that has been still.
	e, repo := statusEnv(t, "[status]\nstill_after = \"10m\"\n")
	it := newJSON(t, e, repo, "--tool", "claude", "--name", "a", "!sleep 60s")
	e.WaitScreen(it.Session, "esc to interrupt")
	require.Equal(t, "working", e.WaitStatus(repo, "a", "working", 10*time.Second).Status)
	// A few seconds into the turn: the monitor (every second) has read it.
	e.WaitScreen(it.Session, "(3s · esc to interrupt)")

	e.Tmux("send-keys", "-t", it.Session, "Escape")
	e.WaitScreen(it.Session, "Interrupted · What should Claude do instead?")
	v := e.WaitStatus(repo, "a", "idle", 20*time.Second)
	require.Equal(t, "screen", v.Source, "no hook fired: the screen said it")
	require.Empty(t, e.HookRuns("a", "Stop"), "Esc fires no Stop hook")
	require.Contains(t, e.MustOwt(repo, "status", "a"), "idle (interrupted)")
	e.requireStatusOption(it.Session, "idle")
}

func TestKilledAgentAndKilledSessionAreExited(t *testing.T) {
	e, repo := statusEnv(t, "")
	newJSON(t, e, repo, "--tool", "claude", "--name", "a", "!sleep 60s")
	// b is a tool without hooks (no SessionEnd to tell): only the monitor knows.
	b := newJSON(t, e, repo, "--tool", "opencode", "--name", "b", "!sleep 60s")
	e.WaitStatus(repo, "a", "working", 10*time.Second)
	e.WaitStatus(repo, "b", "working", 10*time.Second)

	// The agent process dies: its runner records the exit and its code.
	pid := e.AgentPID("a")
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	v := e.WaitStatus(repo, "a", "exited", 10*time.Second)
	require.NotNil(t, v.ExitCode)
	require.Equal(t, 128+9, *v.ExitCode)

	// The whole session is killed, runner and all: the monitor notices a
	// session it has seen (it told of a's exit, so it has looked at b).
	e.Eventually(10*time.Second, "the monitor told of a's exit", func() bool {
		return strings.Contains(e.OwtLog(), "owt: a exited (code 137)")
	})
	e.Tmux("kill-session", "-t", "="+b.Session+":")
	v = e.WaitStatus(repo, "b", "exited", 15*time.Second)
	require.Equal(t, "owt", v.Source)
	require.False(t, v.Live)
}

func TestHookStormEndsAtEachAgentsLastEvent(t *testing.T) {
	// still_after of an hour: the screens (idle prompts) must not correct
	// what the hooks below say; this test is about the hooks alone.
	e, repo := statusEnv(t, "[status]\nstill_after = \"1h\"\n")
	e.Tmux("set-environment", "-g", "OWT_FAKE_IDLE_NOTIFY", "0")
	const agents = 20
	var names []string
	for i := 0; i < agents; i++ {
		names = append(names, fmt.Sprintf("agent-%02d", i))
		newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", names[i], "hello")
	}
	require.Equal(t, 0, e.Owt(repo, append([]string{"wait", "--timeout", "60s"}, names...)...).Code)

	type step struct {
		event string
		extra map[string]any
	}
	common := []step{
		{"UserPromptSubmit", map[string]any{"prompt": "go"}}, {"PreToolUse", nil}, {"PermissionRequest", nil},
		{"Notification", map[string]any{"notification_type": "permission_prompt"}}, {"PostToolUse", nil},
		{"PreToolUse", nil}, {"PostToolUse", nil}, {"Stop", nil}, {"UserPromptSubmit", map[string]any{"prompt": "more"}},
	}
	lasts := []struct {
		step
		want string
	}{
		{step{"Stop", nil}, "idle"},
		{step{"PermissionRequest", nil}, "waiting"},
		{step{"PreToolUse", nil}, "working"},
		{step{"Notification", map[string]any{"notification_type": "idle_prompt"}}, "idle"},
		{step{"SessionEnd", map[string]any{"reason": "other"}}, "exited"},
	}
	items := map[string]Item{}
	for _, it := range e.List(repo) {
		items[it.Name] = it
	}

	var wg sync.WaitGroup
	for i, name := range names {
		it := items[name]
		cmds := fixture.HookCommands(t, filepath.Join(it.Path, ".claude", "settings.local.json"))
		steps := append(append([]step{}, common...), lasts[i%len(lasts)].step)
		// Half find their record through OWT_NAME/OWT_REPO like a session's
		// agent, half through the cwd in the event; all carry the agent's id.
		env := e.agentEnv(repo, name)
		if i%2 != 0 {
			env = env[2:]
		}
		// The agent's own session: another one's events are another
		// tool's, even with its id.
		sid := e.agentSession(repo, name)
		require.NotEmpty(t, sid, name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range steps {
				require.Len(t, cmds[s.event], 1, s.event)
				ev := map[string]any{"session_id": sid, "cwd": it.Path, "hook_event_name": s.event, "transcript_path": "/dev/null"}
				for k, v := range s.extra {
					ev[k] = v
				}
				out := e.RunHook(t, it.Path, cmds[s.event][0], ev, env...)
				require.Empty(t, out, "owt hook prints nothing on stdout")
			}
		}()
	}
	wg.Wait()

	for i, name := range names {
		v := e.Status(repo, name)
		// On failure, owt's log says who set what and when.
		require.Equal(t, lasts[i%len(lasts)].want, v.Status, "%s ends at its last event; owt.log:\n%s", name, e.OwtLog())
		require.Equal(t, "hook", v.Source, "%s; owt.log:\n%s", name, e.OwtLog())
	}
	// The state file is whole and valid, with nothing left beside it once
	// the writers still at work (the monitor confirming screens, a
	// publisher) are done: a temp file is there only while one writes.
	var files, jsons, stray []string
	e.Eventually(15*time.Second, "nothing but the state files and their locks", func() bool {
		var err error
		files, err = filepath.Glob(filepath.Join(e.Var("XDG_STATE_HOME"), "owt", "repos", "*"))
		require.NoError(t, err)
		records, err := filepath.Glob(filepath.Join(e.Var("XDG_STATE_HOME"), "owt", "repos", "*", "*"))
		require.NoError(t, err)
		jsons, stray = nil, nil
		for _, f := range append(files, records...) {
			switch fi, err := os.Stat(f); {
			case err == nil && fi.IsDir() && filepath.Dir(f) == filepath.Join(e.Var("XDG_STATE_HOME"), "owt", "repos"):
			case strings.HasSuffix(f, ".json"):
				jsons = append(jsons, f)
			case strings.HasSuffix(f, ".lock"):
			default:
				stray = append(stray, f)
			}
		}
		return len(stray) == 0
	})
	require.Len(t, jsons, 1+agents, "the index and a record file per agent")
	st := e.stateStore("*.json")
	data, err := os.ReadFile(st.Path)
	require.NoError(t, err)
	var ix struct{ Version int }
	require.NoError(t, json.Unmarshal(data, &ix))
	require.Equal(t, 2, ix.Version)
	f, err := st.Peek()
	require.NoError(t, err, "every record file is whole and valid")
	require.Len(t, f.Records, agents)
	require.Empty(t, e.LogLines("hook"), "no hook failed")
}

func TestHookFilesMergeWithTheUsersAndStayOutOfGit(t *testing.T) {
	e, repo := statusEnv(t, "")
	out := filepath.Join(e.Root, "user-hooks.log")
	// The team commits Gemini settings with a hook of their own.
	e.WriteFile(repo, ".gemini/settings.json", fmt.Sprintf(`{
  "general": {"vimMode": true},
  "hooks": {
    "AfterAgent": [{"matcher": "", "hooks": [{"type": "command", "command": "echo gemini-user >> %s", "timeout": 5000}]}]
  }
}
`, out))
	e.Git(repo, "add", ".gemini/settings.json")
	e.Git(repo, "commit", "-q", "-m", "gemini settings")
	// And keeps personal Claude settings, untracked, copied into worktrees.
	mainClaude := fmt.Sprintf(`{"permissions": {"allow": ["Bash(make:*)"]},
 "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "echo claude-user >> %s"}]}]}}`, out)
	e.WriteFile(repo, ".claude/settings.local.json", mainClaude)
	e.WriteFile(repo, ".owt.toml", "[worktree]\ncopy = [\".claude/settings.local.json\"]\n")
	e.Git(repo, "add", ".owt.toml")
	e.Git(repo, "commit", "-q", "-m", "copy claude settings")

	c := newJSON(t, e, repo, "--tool", "claude", "--name", "c", "!write notes.txt from claude\n!commit claude notes")
	g := newJSON(t, e, repo, "--tool", "gemini", "--name", "g", "!write notes.txt from gemini\n!commit gemini notes")
	require.Equal(t, 0, e.Owt(repo, "wait", "c", "g", "--timeout", "30s").Code)
	require.Equal(t, "hook", e.Status(repo, "c").Source)
	require.Equal(t, "hook", e.Status(repo, "g").Source)

	// Both the user's hooks and owt's ran, each once per event.
	logged, _ := os.ReadFile(out)
	require.Equal(t, 1, strings.Count(string(logged), "claude-user"), string(logged))
	require.Equal(t, 1, strings.Count(string(logged), "gemini-user"), string(logged))
	require.Len(t, e.HookRuns("c", "Stop"), 2)
	require.Len(t, e.HookRuns("g", "AfterAgent"), 2)

	claude := fixture.HookCommands(t, filepath.Join(c.Path, ".claude", "settings.local.json"))
	require.Equal(t, []string{"echo claude-user >> " + out, owtBin + " hook claude Stop"}, claude["Stop"])
	var cs map[string]any
	b, _ := os.ReadFile(filepath.Join(c.Path, ".claude", "settings.local.json"))
	require.NoError(t, json.Unmarshal(b, &cs))
	require.Equal(t, map[string]any{"allow": []any{"Bash(make:*)"}}, cs["permissions"], "the user's settings are kept")
	gem := fixture.HookCommands(t, filepath.Join(g.Path, ".gemini", "settings.json"))
	require.Equal(t, []string{"echo gemini-user >> " + out, owtBin + " hook gemini AfterAgent"}, gem["AfterAgent"])

	// Nothing owt wrote shows in git: not as a change, not in the commits.
	for _, wt := range []Item{c, g} {
		require.Empty(t, e.Git(wt.Path, "status", "--porcelain"), wt.Name)
		require.Equal(t, "notes.txt", e.Git(wt.Path, "show", "--name-only", "--format=", "HEAD"), wt.Name)
	}
	exclude, err := os.ReadFile(filepath.Join(repo, ".git", "info", "exclude"))
	require.NoError(t, err)
	require.Contains(t, string(exclude), "/.claude/settings.local.json")
	require.NotContains(t, string(exclude), ".gemini", "a tracked file is never hidden by an exclude pattern")
	// The exclude pattern covers the main checkout too: its own untracked
	// settings.local.json (a personal file Claude itself keeps out of git)
	// is hidden, unchanged.
	require.Empty(t, e.Git(repo, "status", "--porcelain"))
	b, err = os.ReadFile(filepath.Join(repo, ".claude", "settings.local.json"))
	require.NoError(t, err)
	require.Equal(t, mainClaude, string(b), "the main checkout's own settings are not owt's to change")
}

func TestScreenOnlyToolGetsStatusAndNotifications(t *testing.T) {
	e, repo := statusEnv(t, "")
	notified := filepath.Join(e.Root, "notified.log")
	script := filepath.Join(e.Root, "notify.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho \"$1 $OWT_NAME $OWT_STATUS $OWT_REPO $OWT_PATH\" >> "+notified+"\n"), 0o755))
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", fmt.Sprintf("[notify]\non = [\"waiting\", \"idle\"]\ncommand = [%q, \"from-owt\"]\n", script))
	// A person looks at another session, through a client whose screen
	// the test can read.
	e.Tmux("new-session", "-d", "-s", "viewer", "-x", "120", "-y", "20", "env", "-u", "TMUX", "tmux", "attach-session", "-t", "harness")
	e.Eventually(5*time.Second, "viewer attached", func() bool { return len(e.clients()) == 1 })

	it := newJSON(t, e, repo, "--tool", "opencode", "--name", "o", "!ask make test\n!sleep 5s")
	v := e.WaitStatus(repo, "o", "waiting", 20*time.Second)
	require.Equal(t, "screen", v.Source, "opencode has no hooks: the screen says it")
	e.Eventually(5*time.Second, "message on the viewer's status line", func() bool {
		return strings.Contains(e.Capture("viewer"), "owt: o needs you")
	})
	e.Eventually(5*time.Second, "bell on the agent's window", func() bool {
		out, _ := e.TryTmux("display-message", "-p", "-t", "="+it.Session+":", "#{window_bell_flag}")
		return out == "1"
	})

	e.Tmux("send-keys", "-t", it.Session, "1")
	e.WaitStatus(repo, "o", "working", 10*time.Second)
	v = e.WaitStatus(repo, "o", "idle", 20*time.Second)
	require.Equal(t, "screen", v.Source)

	want := []string{
		fmt.Sprintf("from-owt o waiting %s %s", repo, it.Path),
		fmt.Sprintf("from-owt o idle %s %s", repo, it.Path),
	}
	e.Eventually(5*time.Second, "two notifications", func() bool {
		b, _ := os.ReadFile(notified)
		return len(strings.Fields(string(b))) >= 10
	})
	time.Sleep(time.Second) // a second notification of the same transition would land now
	b, _ := os.ReadFile(notified)
	require.Equal(t, want, strings.Split(strings.TrimSpace(string(b)), "\n"), "one notification per transition, none for working")
}

func TestCodexNotifyReportsTurnEndAndKeepsTheUsersNotify(t *testing.T) {
	e, repo := statusEnv(t, "")
	got := filepath.Join(e.Root, "user-notify.log")
	script := filepath.Join(e.Root, "my-notify")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho \"$1|$2\" >> "+got+"\n"), 0o755))
	codexHome := filepath.Join(e.Home, ".codex")
	e.Tmux("set-environment", "-g", "CODEX_HOME", codexHome)
	e.WriteFile(codexHome, "config.toml", fmt.Sprintf("model = \"o3\"\nnotify = [%q, \"--from-codex\"]\n", script))

	it := newJSON(t, e, repo, "--tool", "codex", "--name", "x", "!sleep 1s")
	v := e.WaitStatus(repo, "x", "idle", 20*time.Second)
	require.Equal(t, "hook", v.Source, "the notify program reported the turn's end")
	start, _ := e.Start("x")
	require.Contains(t, strings.Join(start.Argv, " "), "-c notify=[\""+owtBin+"\",\"hook\",\"codex\",\"notify\",\""+script+"\",\"--from-codex\"]")
	require.Equal(t, "!sleep 1s", start.Argv[len(start.Argv)-1], "the prompt stays last")
	e.Eventually(5*time.Second, "the user's notify ran", func() bool {
		b, _ := os.ReadFile(got)
		return strings.HasPrefix(string(b), "--from-codex|{")
	})
	b, _ := os.ReadFile(got)
	var ev map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(strings.SplitN(string(b), "|", 2)[1])), &ev))
	require.Equal(t, "agent-turn-complete", ev["type"])
	require.Equal(t, it.Path, ev["cwd"])
}

func TestOneMonitorPerServerThatEndsWithIt(t *testing.T) {
	e, repo := statusEnv(t, "")
	newJSON(t, e, repo, "--tool", "claude", "--name", "a", "hello")
	newJSON(t, e, repo, "--no-agent", "--name", "b", "shell")
	e.Eventually(5*time.Second, "a monitor", func() bool { return e.MonitorPID() != 0 })
	pid := e.MonitorPID()
	// Each owt new makes sure a monitor runs: one started while another
	// holds the server's lock leaves, later on a busy machine. One stays.
	e.Eventually(10*time.Second, "one monitor for the server", func() bool { return slices.Equal(e.MonitorPIDs(), []int{pid}) })
	// A second one started by hand finds the lock taken and leaves.
	r := e.Owt(repo, "monitor", "--socket", e.Socket)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, []int{pid}, e.MonitorPIDs())

	e.Tmux("kill-server")
	e.Eventually(5*time.Second, "the monitor ended with its server", func() bool { return !fixture.Alive(pid) })
	require.Empty(t, e.MonitorPIDs())
	log := strings.Join(e.LogLines("monitor"), "\n")
	require.Contains(t, log, "is gone; exiting")
}

func TestHookNeverFailsTheAgent(t *testing.T) {
	e, repo := statusEnv(t, "")
	newJSON(t, e, repo, "--no-agent", "--name", "a", "shell")
	cases := []struct {
		args  []string
		stdin string
		env   []string
		log   string
	}{
		{[]string{"hook", "claude", "Stop"}, "{not json", []string{"OWT_NAME=nosuch", "OWT_REPO=" + repo}, "bad event JSON"},
		{[]string{"hook", "claude", "Stop"}, `{"cwd": "/"}`, nil, "no owt worktree holds /"},
		{[]string{"hook", "claude", "NoSuchEvent"}, `{}`, []string{"OWT_NAME=a", "OWT_REPO=" + repo}, "event ignored: claude NoSuchEvent"},
		{[]string{"hook", "nosuchtool", "Stop"}, `{}`, nil, "event ignored"},
		{[]string{"hook"}, "", nil, "want 'owt hook KIND EVENT'"},
		{[]string{"hook", "codex", "notify", "not json"}, "", nil, "bad event JSON"},
	}
	for _, c := range cases {
		before := len(e.OwtLog())
		r := e.OwtIn(repo, c.env, c.stdin, c.args...)
		require.Equal(t, 0, r.Code, "%v: %s", c.args, r.Stderr)
		require.Empty(t, r.Stdout, "%v prints nothing", c.args)
		require.Empty(t, r.Stderr, "%v", c.args)
		require.Contains(t, e.OwtLog()[before:], c.log, "%v is logged by this run", c.args)
	}
	// A --no-agent worktree has no agent: a tool run in it by hand changes
	// nothing (no one would ever clear its "working").
	// Settled first: the monitor moves a new shell from starting to idle
	// on its own, and that must not pass for the hook's doing.
	it := e.Find(repo, "a")
	was := e.WaitStatus(repo, "a", "idle", 15*time.Second)
	r := e.OwtIn(repo, nil, fmt.Sprintf(`{"cwd": %q, "hook_event_name": "UserPromptSubmit"}`, it.Path), "hook", "claude", "UserPromptSubmit")
	require.Equal(t, 0, r.Code)
	v := e.Status(repo, "a")
	require.Equal(t, was.Status, v.Status)
	require.Equal(t, was.Source, v.Source)
	require.NotEqual(t, "working", v.Status)

	// A good event still lands, found by the cwd in the event.
	b := newJSON(t, e, repo, "--tool", "opencode", "--name", "b", "!sleep 60s")
	e.WaitStatus(repo, "b", "working", 10*time.Second)
	r = e.OwtIn(repo, e.agentEnv(repo, "b")[2:], fmt.Sprintf(`{"cwd": %q, "hook_event_name": "Stop"}`, b.Path), "hook", "claude", "Stop")
	require.Equal(t, 0, r.Code)
	v = e.Status(repo, "b")
	require.Equal(t, "idle", v.Status)
	require.Equal(t, "hook", v.Source)
}

// With no monitor to take the ring, a hook still shows its change in
// tmux: owt hook hands it to a detached "owt _publish".
func TestAHookShowsItsChangeInTmuxWithNoMonitor(t *testing.T) {
	e, repo := statusEnv(t, "")
	it := newJSON(t, e, repo, "--tool", "claude", "--name", "a", "!sleep 1s")
	e.WaitStatus(repo, "a", "idle", 20*time.Second)
	e.requireStatusOption(it.Session, "idle")
	pid := e.MonitorPID()
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	e.Eventually(10*time.Second, "the monitor gone", func() bool { return len(e.MonitorPIDs()) == 0 })

	// Typed into the agent as a person would: a permission prompt.
	e.Tmux("send-keys", "-t", it.Session, "-l", "!ask make test")
	e.Tmux("send-keys", "-t", it.Session, "Enter")
	e.requireStatusOption(it.Session, "waiting")
	require.Equal(t, "hook", e.Status(repo, "a").Source)
	require.Empty(t, e.MonitorPIDs(), "no monitor took the ring")
	require.Empty(t, e.LogLines("hook"))
}

// Hook settings an older owt wrote name its owt-hook program, which is
// gone after an upgrade. owt doctor names them; --fix writes owt's hook
// command in their place, the user's own hooks kept; and so does the
// agent's next start (owt restore here), before the agent runs, so its
// hooks reach owt again.
func TestHookSettingsOfAnOlderOwtAreWrittenAgain(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.idleWithSession(repo, "a", "Task a")
	var path string
	for _, it := range e.List(repo) {
		if it.Name == "a" {
			path = it.Path
		}
	}
	require.NotEmpty(t, path)
	settings := filepath.Join(path, ".claude", "settings.local.json")
	oldHook := filepath.Join(filepath.Dir(owtBin), "owt-hook")
	older := func() []byte {
		t.Helper()
		data, err := os.ReadFile(settings)
		require.NoError(t, err)
		require.Contains(t, string(data), owtBin+" hook claude Stop")
		data = []byte(strings.ReplaceAll(string(data), owtBin+" hook claude ", oldHook+" hook claude "))
		require.NoError(t, os.WriteFile(settings, data, 0o644))
		return data
	}
	written := older()

	var found bool
	for _, f := range doctorJSON(t, e.Owt(repo, "doctor", "--json").Stdout).Findings {
		if f.Kind == "stale-hook-settings" && f.Name == "a" {
			found = true
			require.False(t, f.Fixed)
		}
	}
	require.True(t, found, "doctor names the older owt's hook settings")
	now, err := os.ReadFile(settings)
	require.NoError(t, err)
	require.Equal(t, string(written), string(now), "doctor without --fix writes nothing")
	e.MustOwt(repo, "tmux", "init") // the keys, as a user's tmux.conf binds them
	e.MustOwt(repo, "doctor", "--fix")
	now, err = os.ReadFile(settings)
	require.NoError(t, err)
	require.NotContains(t, string(now), "owt-hook")
	require.Contains(t, string(now), owtBin+" hook claude Stop")
	require.Equal(t, 1, strings.Count(string(now), "hook claude Stop\""), "replaced, not added")

	// The next start of the agent writes them too.
	older()
	e.KillServerExpectMonitorGone()
	e.KillServerAndWait()
	e.newServer(repo)
	e.MustOwt(repo, "restore")
	now, err = os.ReadFile(settings)
	require.NoError(t, err)
	require.NotContains(t, string(now), "owt-hook")
	require.Contains(t, string(now), owtBin+" hook claude Stop")
	e.Eventually(30*time.Second, "a started again", func() bool { return len(e.agentStarts("a")) == 2 })
}

// An update replaces the owt program under a running monitor: the monitor
// starts again as the new owt, in the same process (its pid file stays
// right), and goes on; it never runs old code beside a newer owt.
func TestMonitorStartsAgainAsTheUpdatedOwt(t *testing.T) {
	e, repo := statusEnv(t, "")
	bin := filepath.Join(e.Root, "installed", "owt")
	require.NoError(t, os.MkdirAll(filepath.Dir(bin), 0o755))
	require.NoError(t, copyFile(owtBin, bin, 0o755))
	owt := func(args ...string) {
		for try := 0; ; try++ {
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env = repo, e.Environ()
			out, err := cmd.CombinedOutput()
			// A file just written can be busy for a moment: a child
			// another test forked meanwhile holds its write descriptor
			// until it execs (golang.org/issue/22315).
			if errors.Is(err, syscall.ETXTBSY) && try < 20 {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			require.NoError(t, err, "%s", out)
			return
		}
	}
	owt("new", "--no-agent", "--name", "a", "shell")
	e.Eventually(10*time.Second, "a monitor of the installed owt", func() bool {
		exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", e.MonitorPID()))
		return exe == bin
	})
	pid := e.MonitorPID()
	monitorLog := func() string { return strings.Join(e.LogLines("monitor"), "\n") }

	// As an install does it: the new file beside, renamed over the old;
	// on a loaded machine, before the monitor has even said it started.
	require.NoError(t, copyFile(owtBin, bin+".new", 0o755))
	require.NoError(t, os.Rename(bin+".new", bin))
	// It looks between two ticks; a tick on a loaded machine takes seconds.
	e.Eventually(30*time.Second, "the monitor started again as the new owt", func() bool {
		_, after, updated := strings.Cut(monitorLog(), "owt at "+bin+" was updated")
		return updated && strings.Contains(after, "started for")
	})
	e.Eventually(5*time.Second, "the same process, its pid file rewritten", func() bool { return e.MonitorPID() == pid })
	require.Equal(t, []int{pid}, monitorsOf(e, bin))
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	require.NoError(t, err)
	require.Equal(t, bin, exe, "the monitor runs the new file, not the deleted old one")

	// It goes on, watching its server, and ends with it.
	time.Sleep(2 * time.Second)
	require.Equal(t, []int{pid}, monitorsOf(e, bin))
	e.Tmux("kill-server")
	e.Eventually(5*time.Second, "the monitor ended with its server", func() bool { return !fixture.Alive(pid) })
	require.Contains(t, strings.Join(e.LogLines("monitor"), "\n"), "is gone; exiting")
}

// monitorsOf are the processes running "BIN monitor" for e's server.
func monitorsOf(e *Env, bin string) []int { return e.MonitorPIDsOf(bin) }
