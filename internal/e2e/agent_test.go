package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func newJSON(t *testing.T, e *Env, dir string, args ...string) Item {
	t.Helper()
	out := e.MustOwt(dir, append([]string{"new", "--json"}, args...)...)
	var it Item
	require.NoError(t, json.Unmarshal([]byte(out), &it), out)
	return it
}

func TestNewStartsAgentWithTaskAsOneArgument(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	task := "Add \"auth\" with $(whoami); `id` \\ C-c Enter\nand ünïcode ✓"
	// A turn long enough to be seen working on a busy machine (the
	// default half second can be over before owt list answers).
	e.SetAgentEnv("OWT_FAKE_WORK", "60s")
	it := newJSON(t, e, repo, "--tool", "claude", "--", task)
	require.Equal(t, "claude", it.Tool)

	e.Eventually(15*time.Second, "agent start", func() bool { _, ok := e.Start(it.Name); return ok })
	start, _ := e.Start(it.Name)
	require.Equal(t, "claude", start.Persona)
	require.Equal(t, it.Path, start.Cwd)
	require.Equal(t, task, start.Argv[len(start.Argv)-1], "the task is one argv element, byte for byte")
	require.NotContains(t, start.Argv, "--dangerously-skip-permissions", "skip-permission flags are opt-in")
	require.Equal(t, it.Name, start.Env["OWT_NAME"])
	require.Equal(t, repo, start.Env["OWT_REPO"])
	require.NotEmpty(t, start.Env["OWT_PORT"])

	// The agent took it as its first prompt and is drawing its screen.
	require.Equal(t, []string{task}, e.WaitPrompts(it.Name, 1))
	e.WaitScreen(it.Session, "? for shortcuts")
	// Its prompt hook (an owt process of its own) may land a moment after
	// the screen, later still on a busy machine.
	e.Eventually(10*time.Second, it.Name+" working", func() bool { return e.Find(repo, it.Name).Status == "working" })
	require.Equal(t, "working", e.Find(repo, it.Name).Status)
}

func TestPlanAndAutoApproveFlags(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[agent]\ntool = \"codex\"\nauto_approve = true\n")
	it := newJSON(t, e, repo, "--plan", "Review the code")
	require.Equal(t, "codex", it.Tool)
	e.Eventually(15*time.Second, "agent start", func() bool { _, ok := e.Start(it.Name); return ok })
	start, _ := e.Start(it.Name)
	argv := strings.Join(start.Argv, " ")
	require.Contains(t, argv, "--sandbox read-only")
	require.Contains(t, argv, "--dangerously-bypass-approvals-and-sandbox")
	require.Equal(t, "Review the code", start.Argv[len(start.Argv)-1])
}

func TestPasteToolGetsTaskOnlyAfterItIsReady(t *testing.T) {
	e := NewEnv(t)
	// aider takes no prompt argument; it drops anything typed during a slow
	// start-up, like real TUIs do.
	e.SetAgentEnv("OWT_FAKE_STARTUP", "1500ms")
	repo := e.NewRepo("app")
	task := "Line one of the task\nline two with 'quotes' and C-c"
	it := newJSON(t, e, repo, "--tool", "aider", "--", task)
	prompts := e.WaitPrompts(it.Name, 1)
	require.Equal(t, []string{task}, prompts, "pasted once, whole, newline kept, submitted once")
	for _, ev := range e.Events() {
		if ev.Agent == it.Name && ev.Event == "dropped" {
			t.Fatalf("owt typed before the tool was ready: %+v", ev)
		}
	}
	e.Eventually(5*time.Second, "status working", func() bool { return e.Find(repo, it.Name).Status != "starting" })
}

func TestSendDeliversTextLiterally(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	a := newJSON(t, e, repo, "--tool", "claude", "--name", "a", "First task")
	b := newJSON(t, e, repo, "--tool", "gemini", "--name", "b", "Second task")
	e.WaitPrompts(a.Name, 1)
	e.WaitPrompts(b.Name, 1)

	texts := []string{
		`quotes "double" 'single' and ; semicolon;`,
		`$(touch /tmp/owt-pwned) and \backslash\ and $HOME`,
		"C-c",
		"Enter",
		"send-keys -t x kill-server",
	}
	for _, text := range texts {
		e.MustOwt(repo, "send", "a", text)
	}
	got := e.WaitPrompts(a.Name, 1+len(texts))
	require.Equal(t, texts, got[1:])
	require.NoFileExists(t, "/tmp/owt-pwned")

	multi := "first line\nsecond line\n\nfourth after a blank"
	e.MustOwt(repo, "send", "a", multi)
	require.Equal(t, multi, e.WaitPrompts(a.Name, 2+len(texts))[1+len(texts)])

	// stdin with "-".
	r := e.OwtIn(repo, nil, "from stdin\nwith two lines\n", "send", "a", "-")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "from stdin\nwith two lines", e.WaitPrompts(a.Name, 3+len(texts))[2+len(texts)])

	// Flag-like words in the text stay text: this goes to a alone.
	e.MustOwt(repo, "send", "a", "fix", "--all", "the", "tests")
	require.Equal(t, "fix --all the tests", e.WaitPrompts(a.Name, 4+len(texts))[3+len(texts)])
	require.Len(t, e.Prompts(b.Name), 1)

	// --all reaches both agents.
	e.MustOwt(repo, "send", "--all", "run the tests")
	require.Contains(t, e.WaitPrompts(b.Name, 2), "run the tests")
	require.Contains(t, e.WaitPrompts(a.Name, 5+len(texts)), "run the tests")
}

func TestSendFiltersByStatus(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	// a works for a minute (its hooks report it); b's agent exits.
	a := newJSON(t, e, repo, "--tool", "claude", "--name", "a", "Task a\n!sleep 60s")
	b := newJSON(t, e, repo, "--tool", "claude", "--name", "b", "Task b")
	e.WaitPrompts(a.Name, 1)
	e.WaitPrompts(b.Name, 1)
	// A group send skips b, and only a is working.
	e.MustOwt(repo, "send", "b", "!exit 0")
	e.Eventually(15*time.Second, "b exited", func() bool { return e.Find(repo, "b").Status == "exited" })

	e.MustOwt(repo, "send", "--working", "keep going")
	// a is mid-turn, so its TUI queues the text for the next turn.
	e.Eventually(15*time.Second, "a got keep going", func() bool {
		for _, ev := range e.Events() {
			if ev.Agent == a.Name && (ev.Event == "queued" || ev.Event == "prompt") && ev.Text == "keep going" {
				return true
			}
		}
		return false
	})
	r := e.Owt(repo, "send", "--idle", "anyone idle?")
	require.NotEqual(t, 0, r.Code, "no idle agent: nothing to send to")
	require.NotContains(t, strings.Join(e.Prompts(b.Name), "\n"), "keep going")
}

func TestAgentExitKeepsPaneAndRecordsExitCode(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	it := newJSON(t, e, repo, "--tool", "claude", "Do a thing")
	e.WaitPrompts(it.Name, 1)
	// Once the agent has its task, it is the pane's own process, and no
	// process of owt's stays with it: tmux tells its end.
	e.waitHandedOver(it.Session)
	pid := strings.TrimSpace(e.Tmux("display-message", "-p", "-t", "="+it.Session+":", "#{pane_pid}"))
	children, _ := os.ReadFile("/proc/" + pid + "/task/" + pid + "/children")
	for _, c := range strings.Fields(string(children)) {
		comm, _ := os.ReadFile("/proc/" + c + "/comm")
		require.NotEqual(t, "owt", strings.TrimSpace(string(comm)), "nothing of owt's under the agent")
	}
	e.MustOwt(repo, "send", it.Name, "!exit 3")
	// The monitor may see the pane's agent gone before the runner has
	// recorded its code: the code follows.
	e.Eventually(15*time.Second, "exited with its code", func() bool {
		got := e.Find(repo, it.Name)
		return got.Status == "exited" && got.ExitCode != nil
	})
	got := e.Find(repo, it.Name)
	require.Equal(t, 3, *got.ExitCode)
	require.True(t, got.Live, "the session stays")
	screen := e.WaitScreen(it.Session, "exited with code 3")
	// tmux cleared the pane to start the runner after it: the agent's
	// last screen is shown again above owt's line.
	require.Less(t, strings.Index(screen, "Done: Do a thing"), strings.Index(screen, "exited with code 3"))
	require.GreaterOrEqual(t, strings.Index(screen, "Done: Do a thing"), 0)
	require.NotContains(t, screen, "Pane is dead")

	// The pane is a usable shell in the worktree.
	e.Tmux("send-keys", "-t", it.Session, "-l", "pwd > where.txt")
	e.Tmux("send-keys", "-t", it.Session, "Enter")
	e.Eventually(5*time.Second, "shell ran a command", func() bool {
		b, err := os.ReadFile(filepath.Join(it.Path, "where.txt"))
		return err == nil && strings.TrimSpace(string(b)) == it.Path
	})
	e.Tmux("send-keys", "-t", it.Session, "-l", "env > env.txt")
	e.Tmux("send-keys", "-t", it.Session, "Enter")
	e.Eventually(5*time.Second, "shell wrote its environment", func() bool {
		b, err := os.ReadFile(filepath.Join(it.Path, "env.txt"))
		return err == nil && strings.Contains(string(b), "PATH=")
	})
	shellEnv, err := os.ReadFile(filepath.Join(it.Path, "env.txt"))
	require.NoError(t, err)
	require.Contains(t, string(shellEnv), "OWT_NAME="+it.Name, "the shell is the session's")
	// And owt refuses to type into it.
	r := e.Owt(repo, "send", it.Name, "rm -rf /")
	requireOneLineError(t, r, "not running")
}

// The pane-died hook owt set on an agent's pane is what records its exit
// at once. Where it did not run (here: the hook removed by hand; a tmux
// config reload that drops it), the pane tmux kept dead tells the monitor,
// which records the exit with its signal a few seconds later.
func TestAnExitTheHookMissedIsRecordedByTheMonitor(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	it := newJSON(t, e, repo, "--tool", "claude", "--name", "a", "Do a thing")
	e.WaitPrompts(it.Name, 1)
	e.waitHandedOver(it.Session)
	e.Eventually(10*time.Second, "a monitor", func() bool { return e.MonitorPID() != 0 })
	pane := e.Tmux("display-message", "-p", "-t", "="+it.Session+":", "#{pane_id}")
	e.Tmux("set-hook", "-p", "-u", "-t", pane, "pane-died")
	require.NoError(t, syscall.Kill(e.AgentPID(it.Name), syscall.SIGKILL))
	e.Eventually(15*time.Second, "exited with its code", func() bool {
		got := e.Find(repo, it.Name)
		return got.Status == "exited" && got.ExitCode != nil
	})
	require.Equal(t, 137, *e.Find(repo, it.Name).ExitCode)
	require.Equal(t, "1", e.Tmux("display-message", "-p", "-t", pane, "#{pane_dead}"), "tmux keeps the pane, as it was told")
}

// A tool that cannot start (its interpreter is gone: found on PATH, its
// exec fails) leaves the pane to the runner, which says so and gives the
// shell; the watcher of its start stands down and never types the task
// into that shell, whose prompt the tool's ready pattern matches.
func TestATaskIsNeverTypedIntoTheShellOfAToolThatCouldNotStart(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	tools := filepath.Join(e.Root, "broken-tools")
	e.WriteFile(tools, "broken", "#!/nonexistent/interpreter\n")
	require.NoError(t, os.Chmod(filepath.Join(tools, "broken"), 0o755))
	e.WriteFile(repo, ".owt.toml", "[tools.broken]\ncommand = [\""+filepath.Join(tools, "broken")+"\"]\nprompt = \"paste\"\nready = \".\"\n")
	it := newJSON(t, e, repo, "--tool", "broken", "--no-setup", "--name", "b", "echo TASK-TYPED")
	e.WaitStatus(repo, "b", "exited", 15*time.Second)
	screen := e.WaitScreen(it.Session, "This shell is in the worktree")
	require.Contains(t, screen, "owt: start broken")
	pane := e.Tmux("display-message", "-p", "-t", "="+it.Session+":", "#{pane_id}")
	e.Eventually(10*time.Second, "no watcher left", func() bool { return len(watchersOf(pane)) == 0 })
	time.Sleep(2 * time.Second) // past the watcher's look at the screen, had it stayed
	require.NotContains(t, e.Capture("="+it.Session+":"), "TASK-TYPED")
}

func TestSetupRunsVisiblyBeforeTheAgent(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	// A Node project whose package manager is not installed: the failure is
	// shown and the agent still starts.
	e.WriteFile(repo, "package.json", `{"name":"x","packageManager":"pnpm@9.0.0"}`)
	e.WriteFile(repo, ".owt.toml", "[setup]\ncommands = [\"echo SETUP-RAN on port $OWT_PORT; sleep 2\"]\n")
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "node")
	e.Tmux("set-environment", "-g", "PATH", filepath.Join(e.Root, "nopnpm")+":"+e.Var("PATH"))
	it := newJSON(t, e, repo, "--tool", "claude", "Build it")
	screen := e.WaitScreen(it.Session, "SETUP-RAN on port "+itoa(it.Port))
	_, started := e.Start(it.Name)
	require.False(t, started, "the agent starts after the setup")
	require.Contains(t, screen, "owt: node (pnpm): pnpm install")
	require.Contains(t, screen, "failed")
	e.WaitPrompts(it.Name, 1)

	// --no-setup skips all of it.
	it2 := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "Build it again")
	e.WaitPrompts(it2.Name, 1)
	history := e.Tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", it2.Session)
	require.NotContains(t, history, "SETUP-RAN")
}

func TestSwitchAndAttach(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	it := newJSON(t, e, repo, "--no-agent", "--no-setup", "--name", "target", "Target")
	client := e.AttachClient("harness")
	require.Equal(t, "harness", e.ClientSession(client))

	// Inside tmux: switch-client moves this client.
	inside := []string{"TMUX=" + e.Socket + ",1,0"}
	r := e.OwtIn(repo, inside, "", "switch", "target")
	require.Equal(t, 0, r.Code, r.Stderr)
	e.Eventually(5*time.Second, "client on target", func() bool { return e.ClientSession(client) == it.Session })

	// The server lost the session: attach recreates it on the worktree.
	e.Tmux("switch-client", "-c", client, "-t", "harness")
	e.Tmux("kill-session", "-t", it.Session)
	r = e.OwtIn(repo, inside, "", "switch", "target")
	requireOneLineError(t, r, "owt attach target")
	r = e.OwtIn(repo, inside, "", "attach", "target")
	require.Equal(t, 0, r.Code, r.Stderr)
	e.Eventually(5*time.Second, "client on recreated session", func() bool { return e.ClientSession(client) == it.Session })
	require.Equal(t, it.Path, e.PaneCwd(it.Session))
	require.True(t, e.Find(repo, "target").Live)

	// Outside tmux, switch attaches the terminal.
	out := e.RunInTerminal(repo, owtBin, "switch", "target")
	e.Eventually(5*time.Second, "a second client on target", func() bool {
		return strings.Count(e.Tmux("list-clients", "-F", "#{session_name}"), it.Session) == 2
	})
	out.Close()
}

func TestToolsListsInstalledFakes(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	var tools []struct {
		Name      string
		Installed bool
		Default   bool
	}
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "tools", "--json")), &tools))
	require.Len(t, tools, 9)
	require.Equal(t, "claude", tools[0].Name)
	require.True(t, tools[0].Installed)
	require.True(t, tools[0].Default)
	table := e.MustOwt(repo, "tools")
	require.Contains(t, table, "claude (default)")
}

func TestNewSwitchMovesTheClient(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	client := e.AttachClient("harness")
	inside := []string{"TMUX=" + e.Socket + ",1,0"}
	r := e.OwtIn(repo, inside, "", "new", "--no-agent", "--no-setup", "--switch", "--name", "jump", "Jump there")
	require.Equal(t, 0, r.Code, r.Stderr)
	e.Eventually(5*time.Second, "client on the new session", func() bool { return e.ClientSession(client) == "app/jump" })
}

func TestNewStartsTmuxServerWhenNoneRuns(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Tmux("kill-server")
	it := newJSON(t, e, repo, "--no-agent", "--no-setup", "Work without a server")
	require.True(t, it.Live)
	require.Contains(t, e.Sessions(), it.Session)
}

func TestTaskStartingWithDashIsPastedNotParsedAsAFlag(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	task := "--help is what the tool would see; - list item"
	it := newJSON(t, e, repo, "--tool", "claude", "--", task)
	require.Equal(t, []string{task}, e.WaitPrompts(it.Name, 1))
	start, _ := e.Start(it.Name)
	require.NotContains(t, start.Argv, task)
}

// A paste-mode tool that never shows its prompt: the task is not typed
// into a screen that isn't ready, the user is told, and the agent is not
// left "starting" forever.
func TestPasteToolThatNeverGetsReadyIsNotLeftStarting(t *testing.T) {
	e := NewEnv(t)
	e.Tmux("set-environment", "-g", "OWT_FAKE_STARTUP", "30s")
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[agent]\nready_timeout = \"1s\"\n")
	it := newJSON(t, e, repo, "--tool", "aider", "Never typed")
	e.Eventually(15*time.Second, "status leaves starting", func() bool { return e.Find(repo, it.Name).Status != "starting" })
	require.Equal(t, "idle", e.Find(repo, it.Name).Status)
	require.Empty(t, e.Prompts(it.Name))
	require.Equal(t, "owt", e.Find(repo, it.Name).StatusSource)
}
