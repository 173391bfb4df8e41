package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// The real agent CLIs, at the versions pinned in testdata/realtools
// (make realtools, or .ci/run, installs them). These tests start each one
// under owt with an empty HOME, as a new user would, and check what owt
// reads off its first-run screens after the keys a user presses. Without
// network or a login the tools stop at exactly those screens. When the
// tools are not installed (npm unreachable), the tests skip and say so.

// realToolsBin is the bin folder of the installed real CLIs, or skips.
func realToolsBin(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("OWT_REALTOOLS_BIN")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "owt-realtools", "node_modules", ".bin")
	}
	for _, tool := range []string{"claude", "codex", "gemini", "opencode"} {
		if _, err := os.Stat(filepath.Join(dir, tool)); err != nil {
			t.Skipf("real agent CLIs are not installed in %s (make realtools installs them; it needs the npm registry)", dir)
		}
	}
	return dir
}

// realEnv is an isolated world whose PATH has the real tools instead of
// the fake agent, and whose temp files stay in its own folder. The tests of
// one tool run one at a time (beside every other test): the tool keeps a
// folder in /tmp, per user, whatever HOME and TMPDIR say. They are heavy:
// node or rust programs that need the CPU to start (see fixture.Heavy).
func realEnv(t *testing.T, tool string) *Env {
	t.Helper()
	bin := realToolsBin(t)
	e := NewEnv(t, fixture.Serial("real "+tool), fixture.Heavy())
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	e.Set("PATH", path)
	e.Tmux("set-environment", "-g", "PATH", path)
	// Claude Code updates itself (npm install -g, into the machine's global
	// prefix) unless told not to: a test must not change the machine.
	e.Set("DISABLE_AUTOUPDATER", "1")
	e.Tmux("set-environment", "-g", "DISABLE_AUTOUPDATER", "1")
	// The folder the tool makes in /tmp whatever TMPDIR says (codex's
	// daemon folder, claude's, per user): removed again when this test made
	// it, once its processes are gone (cleanups run last-registered first).
	if dir, ok := map[string]string{
		"codex":  "/tmp/codex-daemon-" + strconv.Itoa(os.Getuid()),
		"claude": "/tmp/claude-" + strconv.Itoa(os.Getuid()),
	}[tool]; ok {
		if _, err := os.Stat(dir); err != nil {
			t.Cleanup(func() { _ = os.RemoveAll(dir) })
		}
	}
	if tool == "opencode" {
		seedOpenCodeConfig(t, e, bin)
	}
	// Registered after NewEnv's cleanup, so it runs first: codex's
	// background server and gemini outlive their pane and the tmux server.
	t.Cleanup(e.killRealTools)
	return e
}

// seedOpenCodeConfig gives OpenCode, in this world's config folder, what it
// would install there on its first start: its plugin API, which
// install.sh put beside the tools (opencode-config). Without it every test
// downloads it from the registry, at ~10 s of CPU. A copy, so nothing
// OpenCode does touches the shared install. It also tells OpenCode not to
// look for an update (npm list --global, and npm's own registry check).
func seedOpenCodeConfig(t *testing.T, e *Env, bin string) {
	t.Helper()
	e.Set("OPENCODE_DISABLE_AUTOUPDATE", "1")
	e.Tmux("set-environment", "-g", "OPENCODE_DISABLE_AUTOUPDATE", "1")
	seed := filepath.Join(filepath.Dir(filepath.Dir(bin)), "opencode-config")
	if _, err := os.Stat(filepath.Join(seed, "node_modules", "@opencode-ai", "plugin", "package.json")); err != nil {
		t.Logf("no OpenCode plugin API in %s (make realtools puts it there): OpenCode installs it itself", seed)
		return
	}
	dst := filepath.Join(e.Var("XDG_CONFIG_HOME"), "opencode")
	require.NoError(t, os.MkdirAll(dst, 0o700))
	out, err := exec.Command("cp", "-a", filepath.Join(seed, "package.json"), filepath.Join(seed, "node_modules"), dst+"/").CombinedOutput()
	require.NoError(t, err, "copy OpenCode's plugin API: %s", out)
}

// killRealTools ends every process of this world (found by its HOME),
// gently first.
func (e *Env) killRealTools() {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		pids := e.processesWithHome()
		for _, pid := range pids {
			_ = syscall.Kill(pid, sig)
		}
		deadline := time.Now().Add(3 * time.Second)
		for len(pids) > 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			pids = e.processesWithHome()
		}
		if len(pids) == 0 {
			return
		}
	}
}

func (e *Env) processesWithHome() []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	want := []byte("HOME=" + e.Home + "\x00")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if pid != os.Getpid() && pid > 0 {
			if comm, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "comm")); strings.TrimSpace(string(comm)) == "tmux: server" {
				continue // the harness kills its server itself
			}
			pids = append(pids, pid)
		}
	}
	return pids
}

// agentView is owt status --json, with what a waiting agent waits for.
type agentView struct {
	Status     string
	WaitingFor string   `json:"waiting_for"`
	TurnError  string   `json:"turn_error"`
	Lines      []string `json:"last_lines"`
}

func (e *Env) view(repo, name string) agentView {
	e.t.Helper()
	var v agentView
	out := e.MustOwt(repo, "status", name, "--json", "-n", "40")
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v
}

// expect waits until owt says the agent is st (and, when waiting, waits
// for why), and logs how long that took: the figure the issue asks to be
// under 3 s is reported, not asserted (speed is not a test). The limit is
// generous: other tests run beside it, and a CLI starts slowly under load.
func (e *Env) expect(repo, name, st, why string) agentView {
	e.t.Helper()
	start := time.Now()
	var v agentView
	deadline := start.Add(90 * time.Second)
	for {
		v = e.view(repo, name)
		if v.Status == st && (why == "" || v.WaitingFor == why) {
			e.t.Logf("%s reads %s %s after %s", name, st, why, time.Since(start).Round(10*time.Millisecond))
			return v
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s: want %s (%s), owt says %s (%s); its screen:\n%s\nowt log:\n%s",
				name, st, why, v.Status, v.WaitingFor, strings.Join(v.Lines, "\n"), e.OwtLog())
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// keys presses keys in the agent's pane, as a user at the keyboard would.
func (e *Env) press(session string, keys ...string) {
	e.t.Helper()
	for _, k := range keys {
		e.Tmux("send-keys", "-t", "="+session+":", k)
		time.Sleep(300 * time.Millisecond)
	}
}

// pressUntil presses key until text shows in the session's pane, as a
// user presses again when a TUI still drawing let a key go by.
func (e *Env) pressUntil(session, key, text string) {
	e.t.Helper()
	target := "=" + session + ":"
	for try := 0; try < 5; try++ {
		e.Tmux("send-keys", "-t", target, key)
		deadline := time.Now().Add(6 * time.Second) // a CLI under load redraws late
		for time.Now().Before(deadline) {
			if strings.Contains(e.Capture(target), text) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	e.t.Fatalf("%s never showed %q after %s:\n%s", session, text, key, e.Capture(target))
}

// pressWhile waits for text in the pane, then presses key every 1.5 s
// while it shows (up to ten times), as a user presses Esc until the
// spinner stops.
func (e *Env) pressWhile(session, key, text string) {
	e.t.Helper()
	target := "=" + session + ":"
	e.Eventually(60*time.Second, fmt.Sprintf("%q on screen of %s", text, target), func() bool {
		return strings.Contains(e.Capture(target), text) // a CLI under load draws late
	})
	for try := 0; try < 10 && strings.Contains(e.Capture(target), text); try++ {
		e.Tmux("send-keys", "-t", target, key)
		time.Sleep(1500 * time.Millisecond)
	}
}

// noFalseFinish fails when owt told the user that name finished a turn it
// never had. It looks once the monitor has surely passed the moment it
// would have told it (noticeBarrier, on the canary).
func (e *Env) noFalseFinish(repo, canary, name string) {
	e.t.Helper()
	e.noticeBarrier(repo, canary)
	require.NotContains(e.t, e.OwtLog(), name+" finished its turn", "no 'finished its turn' notice for a first-run screen")
}

// newReal starts tool under owt on task and returns its session.
func (e *Env) newReal(repo, name, tool, task string) string {
	e.t.Helper()
	out := e.MustOwt(repo, "new", "--json", "--no-setup", "--tool", tool, "--name", name, task)
	var it Item
	require.NoError(e.t, json.Unmarshal([]byte(out), &it), out)
	return it.Session
}

// binaryHas reports whether the installed tool's own files contain s:
// what owt writes for a tool must be what that version accepts.
func binaryHas(t *testing.T, path, s string) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return bytes.Contains(data, []byte(s))
}

// hookEvents are the event names of a hooks settings file owt wrote.
func hookEvents(t *testing.T, path string) []string {
	t.Helper()
	var f struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &f))
	var out []string
	for ev := range f.Hooks {
		out = append(out, ev)
	}
	require.NotEmpty(t, out)
	return out
}

func TestRealClaudeFirstRun(t *testing.T) {
	e := realEnv(t, "claude")
	repo := e.NewRepo("app")
	canary := e.startCanary(repo)
	bin := e.Var("PATH")[:strings.IndexByte(e.Var("PATH"), os.PathListSeparator)]
	native, err := filepath.EvalSymlinks(filepath.Join(bin, "claude"))
	require.NoError(t, err)

	// A HOME that never ran claude: its start-up check cannot reach the
	// network and it exits; owt says so, with the code.
	e.newReal(repo, "fresh", "claude", "say hi")
	e.expect(repo, "fresh", "exited", "")

	// After onboarding (what `claude` once by hand leaves behind): the
	// trust dialog, which warns about owt's hooks. It waits for the user.
	require.NoError(t, os.WriteFile(filepath.Join(e.Home, ".claude.json"), []byte(`{"hasCompletedOnboarding": true}`), 0o600))
	s := e.newReal(repo, "c", "claude", "say hi")
	v := e.expect(repo, "c", "waiting", "trust")
	require.Contains(t, strings.Join(v.Lines, "\n"), "Quick safety check")
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", "c")
	for _, ev := range hookEvents(t, filepath.Join(wt, ".claude", "settings.local.json")) {
		require.True(t, binaryHas(t, native, `"`+ev+`"`), "claude %s does not know the hook event %s", native, ev)
	}
	mcpConfig := e.claudeMCPRegistration(repo, "c")
	e.noFalseFinish(repo, canary, "c")

	// Trust it (down, Enter): the task runs and fails, not logged in. The
	// StopFailure hook says so; the screen says it waits for a login. No
	// MCP server to approve on the way (servers given with --mcp-config
	// need none).
	e.press(s, "Down", "Enter")
	v = e.expect(repo, "c", "waiting", "login")
	require.NotContains(t, strings.Join(v.Lines, "\n"), "MCP server")
	e.Eventually(20*time.Second, "StopFailure reached owt", func() bool {
		return e.view(repo, "c").TurnError == "authentication_failed"
	})
	// /login: the login method menu, then Esc back to the prompt.
	e.Tmux("send-keys", "-t", "="+s+":", "-l", "/login")
	e.press(s, "Enter")
	e.WaitScreen("="+s+":", "Select login method") // a CLI under load draws late
	v = e.expect(repo, "c", "waiting", "login")
	require.Contains(t, strings.Join(v.Lines, "\n"), "Select login method")
	e.press(s, "Escape")
	e.expect(repo, "c", "waiting", "login")
	e.noFalseFinish(repo, canary, "c")

	// With an API key in the environment: claude asks whether to use it
	// (no trust dialog: claude remembers trust per repository). Yes: the
	// turn runs, cannot reach the API and retries (working); Esc
	// interrupts it (idle).
	e.Tmux("set-environment", "-g", "ANTHROPIC_API_KEY", "sk-ant-owt-test-not-a-key")
	k := e.newReal(repo, "k", "claude", "say hi")
	e.expect(repo, "k", "waiting", "API key")
	e.press(k, "Up")
	e.Tmux("send-keys", "-t", "="+k+":", "Enter")
	// Claude 2.1.330 then draws a blank pane for seconds: the question
	// was answered, the task not taken yet: starting, not "API key".
	var blankSince time.Time
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		blank := strings.TrimSpace(e.Capture("="+k+":")) == ""
		if !blank {
			if !blankSince.IsZero() {
				t.Logf("claude's pane was blank for %s, owt never said starting", time.Since(blankSince).Round(100*time.Millisecond))
				require.Less(t, time.Since(blankSince), 3500*time.Millisecond, "owt kept 'waiting (API key)' over a blank pane")
				break
			}
			continue
		}
		if blankSince.IsZero() {
			blankSince = time.Now()
		}
		if v := e.view(repo, "k"); v.Status == "starting" {
			t.Logf("starting %s into claude's blank pane", time.Since(blankSince).Round(100*time.Millisecond))
			break
		}
	}
	e.expect(repo, "k", "working", "")
	e.press(k, "Escape")
	e.expect(repo, "k", "idle", "")

	// Ctrl-C twice quits claude; owt records the exit.
	e.press(k, "C-c", "C-c")
	e.expect(repo, "k", "exited", "")

	// Deleting an agent's worktree removes its MCP config file.
	e.MustOwt(repo, "delete", "c", "--force")
	_, err = os.Stat(mcpConfig)
	require.True(t, os.IsNotExist(err), "%s is left behind", mcpConfig)
}

func TestRealCodexFirstRun(t *testing.T) {
	e := realEnv(t, "codex")
	repo := e.NewRepo("app")
	canary := e.startCanary(repo)
	e.Set("CODEX_HOME", filepath.Join(e.Home, ".codex"))
	require.NoError(t, os.MkdirAll(e.Var("CODEX_HOME"), 0o700))

	// Not signed in: the sign-in choice, then "another way", then the API
	// key box. Each waits for the user, and says for what.
	s := e.newReal(repo, "c", "codex", "say hi")
	v := e.expect(repo, "c", "waiting", "login")
	require.Contains(t, strings.Join(v.Lines, "\n"), "Sign in")
	e.codexMCPRegistration(repo, "c")
	e.press(s, "Down", "Down")
	e.pressUntil(s, "Enter", "Use an OpenAI API key")
	e.expect(repo, "c", "waiting", "login")
	e.pressUntil(s, "Enter", "Paste or type your API key")
	e.expect(repo, "c", "waiting", "API key")
	e.noFalseFinish(repo, canary, "c")
	e.press(s, "C-c")
	e.expect(repo, "c", "exited", "")

	// Signed in with a key: the folder trust screen; trusting it runs the
	// task, which cannot reach the API (working); Esc interrupts (idle).
	login := exec.Command(filepath.Join(realToolsBin(t), "codex"), "login", "--with-api-key")
	login.Env = e.Environ()
	login.Stdin = strings.NewReader("sk-owt-test-not-a-key\n")
	out, err := login.CombinedOutput()
	require.NoError(t, err, "%s", out)
	k := e.newReal(repo, "k", "codex", "say hi")
	e.expect(repo, "k", "waiting", "trust")
	e.press(k, "Enter")
	e.expect(repo, "k", "working", "")
	e.press(k, "Escape")
	e.expect(repo, "k", "idle", "")
	e.noFalseFinish(repo, canary, "k")
	e.press(k, "C-c")
	e.expect(repo, "k", "exited", "")

	// With owt's hooks in the user's Codex hooks file (trusted once, in
	// Codex's own review screen), codex runs without -c, and its
	// lifecycle hooks report the turn: the prompt starts it, Esc
	// (Codex's Interrupt event) ends it.
	hooksOut := e.MustOwt(repo, "tools", "codex-hooks")
	require.Contains(t, hooksOut, "installed owt's hooks")
	// owt still gives codex owt mcp with -c, and any -c runs codex embedded.
	require.Contains(t, hooksOut, "codex runs embedded, without its shared background server")
	require.NotContains(t, hooksOut, "keeps its shared background server")
	h := e.newReal(repo, "hk", "codex", "say hi")
	target := "=" + h + ":"
	e.Eventually(30*time.Second, "codex asks to review the new hooks", func() bool {
		return strings.Contains(e.Capture(target), "Hooks need review")
	})
	e.expect(repo, "hk", "waiting", "hooks") // hook commands to review and trust: no folder, no permission
	e.press(h, "Down")
	e.pressUntil(h, "Enter", "esc to interrupt")
	e.expect(repo, "hk", "working", "")
	for _, pid := range e.processesWithHome() {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		require.NotContains(t, string(cmdline), "notify=", "codex started without -c notify")
	}
	e.press(h, "Escape")
	e.Eventually(20*time.Second, "Codex's Interrupt hook makes it idle", func() bool { return e.hookSaid(repo, "hk", "idle") })
	e.noFalseFinish(repo, canary, "hk")

	// Codex caps its Interrupt and SessionEnd hook timeouts at 3 s and
	// lists a larger one among its start-up warnings (F2), each start.
	if strings.Contains(e.Capture(target), "f2 to view") {
		e.press(h, "F2")
		for i := 1; i < 10; i++ {
			e.seeOnScreen(h, fmt.Sprintf("Warnings · %d of ", i))
			screen := e.Capture(target)
			require.NotContains(t, screen, "clamping", "owt's hook timeouts are within Codex's caps")
			if strings.Contains(screen, fmt.Sprintf("Warnings · %d of %d ", i, i)) {
				break
			}
			e.press(h, "Right")
		}
		e.press(h, "Escape")
	}
}

// hookSaid reports whether the agent's status is st, set by a hook.
func (e *Env) hookSaid(repo, name, st string) bool {
	e.t.Helper()
	var v struct{ Status, Source string }
	out := e.MustOwt(repo, "status", name, "--json")
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v.Status == st && v.Source == "hook"
}

// Gemini's first run, in a repository whose committed project settings
// hold a setting and an MCP server of the user's: owt adds its hooks and
// its MCP server beside them, and git status stays clean. Gemini asks in
// turn to trust the folder, for the sign-in method, for the API key, each
// a wait for the user. Untrusted, it lists the MCP servers as disabled;
// trusting the folder enables them, with no other approval.
func TestRealGeminiFirstRun(t *testing.T) {
	e := realEnv(t, "gemini")
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".gemini/settings.json", `{
  "ui": {"hideTips": true},
  "mcpServers": {"mine": {"command": "my-mcp-server", "args": ["--flag"]}}
}
`)
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "gemini settings")
	canary := e.startCanary(repo)
	bin := realToolsBin(t)

	s := e.newReal(repo, "g", "gemini", "say hi")
	e.expect(repo, "g", "waiting", "trust")
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", "g")
	bundle, err := filepath.EvalSymlinks(filepath.Join(bin, "gemini"))
	require.NoError(t, err)
	src, _ := filepath.Glob(filepath.Join(filepath.Dir(bundle), "*.js"))
	settingsFile := filepath.Join(wt, ".gemini", "settings.json")
	for _, ev := range hookEvents(t, settingsFile) {
		known := false
		for _, f := range src {
			known = known || binaryHas(t, f, ev)
		}
		require.True(t, known, "gemini does not know the hook event %s", ev)
	}
	var settings struct {
		UI         map[string]any             `json:"ui"`
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	data, err := os.ReadFile(settingsFile)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &settings), "%s", data)
	require.Equal(t, true, settings.UI["hideTips"])
	require.Contains(t, settings.MCPServers, "mine")
	require.Contains(t, settings.MCPServers, "owt")
	require.Contains(t, string(settings.MCPServers["owt"]), `"OWT_MCP_TOKEN": "${OWT_MCP_TOKEN}"`, "the secret's name, not the secret")
	e.gitClean(wt)
	require.Contains(t, e.toolRun(wt, nil, "", "gemini", "mcp", "list"), "owt: ")

	e.press(s, "Enter")
	e.expect(repo, "g", "waiting", "login")
	list := e.toolRun(wt, nil, "", "gemini", "mcp", "list")
	require.Regexp(t, `✓ owt: \S*owt mcp \(stdio\) - Connected`, list)
	require.Contains(t, list, "mine: my-mcp-server --flag (stdio)")
	// (A repository without settings of its own, where owt's file is
	// hidden by info/exclude, is owt's part alone: the fake Gemini's
	// tests cover it.)

	// Down until the API key is the choice (a key let go by while Gemini
	// draws would make Enter sign in with Google), then Enter.
	e.pressUntil(s, "Down", "● 2. Use Gemini API Key")
	e.press(s, "Enter")
	e.expect(repo, "g", "waiting", "API key")
	e.noFalseFinish(repo, canary, "g")
}

// OpenCode offline, at 80x24, in a repository whose committed project
// config has an MCP server of the user's. No login screen: it starts on
// its free model, which it cannot reach here, and keeps retrying
// (working; at 80 columns its footer wraps and "esc interrupt" is pushed
// off). owt's MCP server is in OPENCODE_CONFIG_CONTENT, nothing in the
// worktree, and OpenCode connects to it beside the user's. Two Esc
// interrupt the turn: idle, and no "finished its turn". (At the default
// size, with a model that answers: TestRealOpenCodeEscIsNoFinishedTurn.)
func TestRealOpenCodeAt80x24(t *testing.T) {
	e := realEnv(t, "opencode")
	repo := e.NewRepo("app")
	// The $schema is what OpenCode adds to a config file that lacks it.
	e.WriteFile(repo, "opencode.json", `{"$schema": "https://opencode.ai/config.json", "mcp": {"mine": {"type": "local", "command": ["my-mcp-server"], "enabled": false}}}`+"\n")
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "opencode config")
	canary := e.startCanary(repo)
	e.WriteFile(repo, ".owt.toml", "[tmux]\nsize = \"80x24\"\n"+canaryToml)
	s := e.newReal(repo, "o", "opencode", "say hi")
	e.expect(repo, "o", "working", "")
	wt := filepath.Join(filepath.Dir(repo), "app.worktrees", "o")

	_, env := e.agentProcess("--prompt")
	content := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "OPENCODE_CONFIG_CONTENT="); ok {
			content = v
		}
	}
	require.Contains(t, content, `"owt"`)
	e.gitClean(wt)
	list := e.toolRun(wt, []string{"OPENCODE_CONFIG_CONTENT=" + content}, "", "opencode", "mcp", "list")
	require.Regexp(t, `✓ owt\s+connected`, list)
	require.Contains(t, list, "mine")

	// The first Esc arms the interrupt ("esc again to interrupt", a hint
	// cut off at 80 columns); a second one a moment later (at once it
	// reads as Alt+Esc) interrupts, if it is still going.
	e.pressWhile(s, "Escape", "retrying")
	e.expect(repo, "o", "idle", "")
	e.noFalseFinish(repo, canary, "o")
}
