package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// These tests build the fake agent and drive it through a pty, the way a
// tmux pane would. Run them with `go test ./testdata/fakeagent/` (./...
// skips testdata directories).

var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fakeagent-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "fakeagent")
	build := exec.Command("go", "build", "-o", binPath, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building fakeagent: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// ---- harness ----

type agent struct {
	t       *testing.T
	cmd     *exec.Cmd
	pty     *os.File
	logPath string

	mu  sync.Mutex
	out bytes.Buffer

	done     chan struct{}
	exitCode int
	// drained is closed once the pty has nothing more to read: what the
	// agent wrote before it exited is all in out.
	drained chan struct{}
}

type agentConfig struct {
	persona string   // OWT_FAKE_PERSONA; "" to pick by program name
	program string   // path to run; default the built binary
	dir     string   // working directory; default a new temp dir
	home    string   // HOME; default a new temp dir
	env     []string // extra environment
	args    []string
}

// baseEnv is the test's environment without anything that could reach the
// developer's own agent settings or a tmux server.
func baseEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME", k == "TMUX", k == "CODEX_HOME", strings.HasPrefix(k, "OWT_"),
			strings.HasPrefix(k, "GIT_"), strings.HasPrefix(k, "XDG_"):
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "TERM=xterm-256color",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Fake Agent", "GIT_AUTHOR_EMAIL=fake@example.com",
		"GIT_COMMITTER_NAME=Fake Agent", "GIT_COMMITTER_EMAIL=fake@example.com",
		"OWT_FAKE_STARTUP=100ms", "OWT_FAKE_WORK=100ms")
}

func startAgent(t *testing.T, c agentConfig) *agent {
	t.Helper()
	if c.dir == "" {
		c.dir = t.TempDir()
	}
	if c.home == "" {
		c.home = t.TempDir()
	}
	if c.program == "" {
		c.program = binPath
	}
	a := &agent{t: t, logPath: filepath.Join(t.TempDir(), "log.jsonl"), done: make(chan struct{}), drained: make(chan struct{})}
	a.cmd = exec.Command(c.program, c.args...)
	a.cmd.Dir = c.dir
	a.cmd.Env = append(baseEnv(c.home), "OWT_FAKE_LOG="+a.logPath, "OWT_NAME=test-agent")
	if c.persona != "" {
		a.cmd.Env = append(a.cmd.Env, "OWT_FAKE_PERSONA="+c.persona)
	}
	a.cmd.Env = append(a.cmd.Env, c.env...)
	f, err := pty.StartWithSize(a.cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	a.pty = f
	go func() {
		defer close(a.drained)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			a.mu.Lock()
			a.out.Write(buf[:n])
			a.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		err := a.cmd.Wait()
		a.exitCode = a.cmd.ProcessState.ExitCode()
		if err != nil && a.exitCode < 0 {
			a.exitCode = -1
		}
		close(a.done)
	}()
	t.Cleanup(func() {
		select {
		case <-a.done:
		default:
			_ = a.cmd.Process.Kill()
			<-a.done
		}
		_ = f.Close()
		if t.Failed() {
			t.Logf("screen output:\n%s", a.screen())
			data, _ := os.ReadFile(a.logPath)
			t.Logf("log:\n%s", data)
		}
	})
	return a
}

var ansiRE = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// screen is everything drawn so far, without escape sequences.
func (a *agent) screen() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return ansiRE.ReplaceAllString(a.out.String(), "")
}

func (a *agent) mark() int {
	return len(a.screen())
}

func (a *agent) write(s string) {
	a.t.Helper()
	if _, err := a.pty.WriteString(s); err != nil {
		a.t.Fatal(err)
	}
}

// waitScreen waits until text is drawn after mark.
func (a *agent) waitScreen(mark int, text string) {
	a.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if s := a.screen(); len(s) >= mark && strings.Contains(s[mark:], text) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.t.Fatalf("screen never showed %q", text)
}

type event map[string]any

func (a *agent) events() []event {
	data, err := os.ReadFile(a.logPath)
	if err != nil {
		return nil
	}
	var evs []event
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			a.t.Fatalf("bad log line %q: %v", sc.Text(), err)
		}
		evs = append(evs, e)
	}
	return evs
}

func (a *agent) find(match func(event) bool) []event {
	var out []event
	for _, e := range a.events() {
		if match(e) {
			out = append(out, e)
		}
	}
	return out
}

func is(name string) func(event) bool {
	return func(e event) bool { return e["event"] == name }
}

func isHook(name string) func(event) bool {
	return func(e event) bool { return e["event"] == "hook" && e["name"] == name }
}

// waitEvent waits for the n-th (1-based) event that matches.
func (a *agent) waitEvent(n int, match func(event) bool) event {
	a.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if evs := a.find(match); len(evs) >= n {
			return evs[n-1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.t.Fatalf("event #%d never logged", n)
	return nil
}

func (a *agent) waitExit() int {
	a.t.Helper()
	select {
	case <-a.done:
	case <-time.After(5 * time.Second):
		a.t.Fatal("agent did not exit")
		return 0
	}
	// The exit can be seen before the last of its screen is read.
	select {
	case <-a.drained:
	case <-time.After(2 * time.Second):
	}
	return a.exitCode
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookSettings is a settings file running command for each event.
func hookSettings(t *testing.T, hooks map[string][2]string) string {
	t.Helper()
	type cmd struct {
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout,omitempty"`
	}
	type group struct {
		Matcher string `json:"matcher"`
		Hooks   []cmd  `json:"hooks"`
	}
	s := map[string]map[string][]group{"hooks": {}}
	for event, mc := range hooks {
		s["hooks"][event] = []group{{Matcher: mc[0], Hooks: []cmd{{Type: "command", Command: mc[1], Timeout: 10}}}}
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v: %q", path, err, data)
	}
	return m
}

func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
			time.Sleep(20 * time.Millisecond) // let the writer finish
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never written", path)
}

// ---- end-to-end through a pty ----

func TestStartupInputIsDropped(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentConfig{persona: "claude", env: []string{"OWT_FAKE_STARTUP=500ms"}})
	a.write("typed too early") // a real TUI loses this: owt must wait for the ready pattern
	a.waitEvent(1, is("ready"))
	a.write("on time\r")
	p := a.waitEvent(1, is("prompt"))
	if p["text"] != "on time" {
		t.Fatalf("prompt = %q, want %q", p["text"], "on time")
	}
	d := a.waitEvent(1, is("dropped"))
	if d["bytes"] != float64(len("typed too early")) {
		t.Fatalf("dropped %v bytes, want %d", d["bytes"], len("typed too early"))
	}
}

func TestReadyScreenAndTypedPrompt(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentConfig{persona: "claude", args: []string{"--model", "opus", "--frobnicate"}})
	a.waitEvent(1, is("ready"))
	for _, want := range []string{"✻ Welcome to Claude Code!", "│ > ", "? for shortcuts"} {
		a.waitScreen(0, want)
	}
	if n := len(a.find(is("prompt"))); n != 0 {
		t.Fatalf("%d prompts before any input", n)
	}
	start := a.find(is("start"))[0]
	if start["persona"] != "claude" || start["cwd"] != a.cmd.Dir {
		t.Fatalf("start event = %v", start)
	}
	if fmt.Sprint(start["unknown_flags"]) != "[--frobnicate]" {
		t.Fatalf("unknown flags = %v", start["unknown_flags"])
	}
	if env := start["env"].(map[string]any); env["OWT_NAME"] != "test-agent" {
		t.Fatalf("start env = %v", env)
	}

	m := a.mark()
	a.write("fix the bugx\x7f") // a backspace edits the input
	a.waitScreen(m, "│ > fix the bug ")
	a.write("\r")
	p := a.waitEvent(1, is("prompt"))
	if p["text"] != "fix the bug" || p["source"] != "typed" {
		t.Fatalf("prompt event = %v", p)
	}
	a.waitScreen(m, "esc to interrupt")
	a.waitScreen(m, "● Done: fix the bug")
}

func TestBracketedPasteIsOnePrompt(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentConfig{persona: "claude"})
	a.waitEvent(1, is("ready"))
	m := a.mark()
	// tmux paste-buffer -p sends line breaks as CR: inside a paste they must not submit.
	a.write("\x1b[200~line one\rline two\x1b[201~")
	a.waitScreen(m, "line two")
	a.write("\r")
	a.waitScreen(m, "Done: line one")
	prompts := a.find(is("prompt"))
	if len(prompts) != 1 || prompts[0]["text"] != "line one\nline two" || prompts[0]["source"] != "paste" {
		t.Fatalf("prompts = %v", prompts)
	}
}

func TestClaudeHooksRunThroughShell(t *testing.T) {
	t.Parallel()
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.local.json"), hookSettings(t, map[string][2]string{
		"Stop":             {"", `cat > "$OUT/stop.json"; pwd > "$OUT/stop.pwd"; echo "$CLAUDE_PROJECT_DIR" > "$OUT/stop.env"`},
		"UserPromptSubmit": {"", `cat > "$OUT/submit.json"`},
		"SessionStart":     {"startup", `cat > "$OUT/start.json"`},
		"SessionEnd":       {"", `cat > "$OUT/end.json"`},
	}))
	extra := filepath.Join(t.TempDir(), "extra.json")
	writeFile(t, extra, hookSettings(t, map[string][2]string{"Stop": {"", `touch "$OUT/extra-stop"`}}))
	a := startAgent(t, agentConfig{persona: "claude", dir: dir, env: []string{"OUT=" + out},
		args: []string{"--permission-mode", "plan", "--settings", extra, "write the tests"}})

	a.waitEvent(2, isHook("Stop"))
	stop := readJSON(t, filepath.Join(out, "stop.json"))
	if stop["hook_event_name"] != "Stop" || stop["cwd"] != dir || stop["permission_mode"] != "plan" ||
		stop["session_id"] == "" || stop["transcript_path"] == "" || stop["stop_hook_active"] != false {
		t.Fatalf("Stop hook input = %v", stop)
	}
	if len(a.find(isHook("Stop"))) != 2 { // settings.local.json and --settings both apply
		t.Fatalf("Stop hooks run: %v", a.find(isHook("Stop")))
	}
	if _, err := os.Stat(filepath.Join(out, "extra-stop")); err != nil {
		t.Fatal("the Stop hook of --settings did not run")
	}
	for _, f := range []string{"stop.pwd", "stop.env"} {
		if got, _ := os.ReadFile(filepath.Join(out, f)); strings.TrimSpace(string(got)) != dir {
			t.Fatalf("%s = %q, want %q", f, got, dir)
		}
	}
	submit := readJSON(t, filepath.Join(out, "submit.json"))
	if submit["prompt"] != "write the tests" || submit["session_id"] != stop["session_id"] {
		t.Fatalf("UserPromptSubmit hook input = %v", submit)
	}
	if start := readJSON(t, filepath.Join(out, "start.json")); start["source"] != "startup" {
		t.Fatalf("SessionStart hook input = %v", start)
	}
	logged := a.find(func(e event) bool {
		return e["name"] == "Stop" && strings.Contains(fmt.Sprint(e["command"]), "stop.json")
	})
	if len(logged) != 1 || logged[0]["exit"] != float64(0) {
		t.Fatalf("hook log = %v", logged)
	}

	a.write("\x04") // Ctrl-D on an empty input
	if code := a.waitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if end := readJSON(t, filepath.Join(out, "end.json")); end["reason"] != "prompt_input_exit" {
		t.Fatalf("SessionEnd hook input = %v", end)
	}
}

func TestEscInterruptFiresNoStopHook(t *testing.T) {
	t.Parallel()
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.local.json"), hookSettings(t, map[string][2]string{
		"Stop": {"", `cat >> "$OUT/stop.jsonl"; echo >> "$OUT/stop.jsonl"`},
	}))
	a := startAgent(t, agentConfig{persona: "claude", dir: dir, env: []string{"OUT=" + out}})
	a.waitEvent(1, is("ready"))
	m := a.mark()
	a.write("!sleep 10s\r")
	a.waitScreen(m, "esc to interrupt")
	a.write("\x1b")
	a.waitScreen(m, "⎿  Interrupted · What should Claude do instead?")
	a.waitEvent(1, is("interrupt"))
	time.Sleep(200 * time.Millisecond)
	if hooks := a.find(isHook("Stop")); len(hooks) != 0 {
		t.Fatalf("Stop hook ran after Esc: %v", hooks)
	}

	// As Claude Code 2.1.330 does, the stopped prompt is back in the box.
	a.waitEvent(1, is("restored"))
	a.waitScreen(m, "│ > !sleep 10s")

	a.write("\x15next\r") // a normal turn still fires Stop, exactly once
	a.waitEvent(1, isHook("Stop"))
	waitFile(t, filepath.Join(out, "stop.jsonl"))
	data, _ := os.ReadFile(filepath.Join(out, "stop.jsonl"))
	if n := strings.Count(strings.TrimSpace(string(data)), "\n") + 1; n != 1 {
		t.Fatalf("Stop ran %d times:\n%s", n, data)
	}
}

func TestPermissionPrompt(t *testing.T) {
	t.Parallel()
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), hookSettings(t, map[string][2]string{
		"PermissionRequest": {"Bash", `cat > "$OUT/perm.json"`},
		"Notification":      {"permission_prompt", `cat > "$OUT/notify.json"`},
	}))
	a := startAgent(t, agentConfig{persona: "claude", dir: dir, env: []string{"OUT=" + out},
		args: []string{"!ask make test"}})
	a.waitScreen(0, "Do you want to proceed?")
	a.waitScreen(0, "❯ 1. Yes")
	a.waitScreen(0, "  3. No, and tell Claude what to do differently (esc)")
	a.waitEvent(1, isHook("Notification"))
	n := readJSON(t, filepath.Join(out, "notify.json"))
	if n["notification_type"] != "permission_prompt" || n["message"] != "Claude needs your permission to use Bash" {
		t.Fatalf("Notification hook input = %v", n)
	}
	if p := readJSON(t, filepath.Join(out, "perm.json")); p["tool_name"] != "Bash" {
		t.Fatalf("PermissionRequest hook input = %v", p)
	}

	m := a.mark()
	a.write("1")
	a.waitScreen(m, "Done: !ask make test")
	if ask := a.waitEvent(1, is("ask")); ask["answer"] != "yes" {
		t.Fatalf("ask event = %v", ask)
	}

	m = a.mark()
	a.write("!ask rm -rf /\r")
	a.waitScreen(m, "Do you want to proceed?")
	a.write("n")
	a.waitScreen(m, "User rejected")
	if ask := a.waitEvent(2, is("ask")); ask["answer"] != "no" {
		t.Fatalf("ask event = %v", ask)
	}
}

func TestPermissionPromptSkippedWhenBypassed(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentConfig{persona: "claude", args: []string{"--dangerously-skip-permissions", "!ask ls"}})
	a.waitScreen(0, "Done: !ask ls")
	if ask := a.waitEvent(1, is("ask")); ask["answer"] != "auto" {
		t.Fatalf("ask event = %v", ask)
	}
	if strings.Contains(a.screen(), "Do you want to proceed?") {
		t.Fatal("permission prompt shown despite --dangerously-skip-permissions")
	}
}

func TestWriteAndCommit(t *testing.T) {
	t.Parallel()
	dir, out := t.TempDir(), t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = baseEnv(t.TempDir())
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
		return strings.TrimSpace(string(b))
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "initial")
	writeFile(t, filepath.Join(dir, ".claude", "settings.local.json"), hookSettings(t, map[string][2]string{
		"PreToolUse":  {"Write|Bash", `cat >> "$OUT/pre.jsonl"; echo >> "$OUT/pre.jsonl"`},
		"PostToolUse": {"Bash", `cat > "$OUT/post.json"`},
	}))
	git("add", ".claude")
	git("commit", "-q", "-m", "settings")

	a := startAgent(t, agentConfig{persona: "claude", dir: dir, env: []string{"OUT=" + out}})
	a.waitEvent(1, is("ready"))
	m := a.mark()
	a.write("\x1b[200~add notes\r!write notes/a.txt hello\\nworld\r!commit Add notes\x1b[201~\r")
	a.waitScreen(m, "Done: add notes")

	if got := git("log", "-1", "--format=%s"); got != "Add notes" {
		t.Fatalf("last commit %q", got)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("worktree not clean:\n%s", got)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes", "a.txt")); string(data) != "hello\nworld\n" {
		t.Fatalf("notes/a.txt = %q", data)
	}
	pre, _ := os.ReadFile(filepath.Join(out, "pre.jsonl"))
	if !strings.Contains(string(pre), `"tool_name":"Write"`) || !strings.Contains(string(pre), `"tool_name":"Bash"`) {
		t.Fatalf("PreToolUse inputs:\n%s", pre)
	}
	post := readJSON(t, filepath.Join(out, "post.json"))
	if post["tool_name"] != "Bash" || !strings.Contains(fmt.Sprint(post["tool_input"]), "git commit -m 'Add notes'") {
		t.Fatalf("PostToolUse input = %v", post)
	}
}

func TestPreToolUseExit2Blocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.local.json"), hookSettings(t, map[string][2]string{
		"PreToolUse": {"Write", `echo "no writes here" >&2; exit 2`},
	}))
	a := startAgent(t, agentConfig{persona: "claude", dir: dir, args: []string{"!write x.txt"}})
	a.waitScreen(0, "Blocked by hook: no writes here")
	a.waitScreen(0, "Done: !write x.txt")
	if _, err := os.Stat(filepath.Join(dir, "x.txt")); err == nil {
		t.Fatal("blocked write happened")
	}
}

func TestExitScript(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentConfig{persona: "claude", args: []string{"!exit 3"}})
	if code := a.waitExit(); code != 3 {
		t.Fatalf("exit code %d, want 3", code)
	}
	if e := a.waitEvent(1, is("exit")); e["code"] != float64(3) {
		t.Fatalf("exit event = %v", e)
	}
}

func TestCtrlCTwiceExits130(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentConfig{persona: "codex"})
	a.waitEvent(1, is("ready"))
	m := a.mark()
	a.write("draft\x03")
	a.waitScreen(m, "Press Ctrl-C again to exit")
	a.write("\x03")
	if code := a.waitExit(); code != 130 {
		t.Fatalf("exit code %d, want 130", code)
	}
}

func TestIdleNotificationAndSignal(t *testing.T) {
	t.Parallel()
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), hookSettings(t, map[string][2]string{
		"Notification": {"idle_prompt", `cat > "$OUT/idle.json"`},
		"SessionEnd":   {"", `cat > "$OUT/end.json"`},
	}))
	a := startAgent(t, agentConfig{persona: "claude", dir: dir,
		env: []string{"OUT=" + out, "OWT_FAKE_IDLE_NOTIFY=200ms"}, args: []string{"hi"}})
	a.waitEvent(1, isHook("Notification"))
	if n := readJSON(t, filepath.Join(out, "idle.json")); n["notification_type"] != "idle_prompt" {
		t.Fatalf("Notification hook input = %v", n)
	}
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := a.waitExit(); code != 143 {
		t.Fatalf("exit code %d, want 143", code)
	}
	if end := readJSON(t, filepath.Join(out, "end.json")); end["reason"] != "other" {
		t.Fatalf("SessionEnd hook input = %v", end)
	}
}

func TestDroidHooks(t *testing.T) {
	t.Parallel()
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".factory", "settings.json"), hookSettings(t, map[string][2]string{
		"PreToolUse": {"Create", `cat > "$OUT/pre.json"; echo "$FACTORY_PROJECT_DIR" > "$OUT/env"`},
		"Stop":       {"", `cat > "$OUT/stop.json"`},
	}))
	a := startAgent(t, agentConfig{persona: "droid", dir: dir, env: []string{"OUT=" + out},
		args: []string{"!write a.txt"}})
	a.waitEvent(1, isHook("Stop"))
	if pre := readJSON(t, filepath.Join(out, "pre.json")); pre["tool_name"] != "Create" {
		t.Fatalf("PreToolUse hook input = %v", pre)
	}
	if env, _ := os.ReadFile(filepath.Join(out, "env")); strings.TrimSpace(string(env)) != dir {
		t.Fatalf("FACTORY_PROJECT_DIR = %q", env)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(data) != "fake change\n" {
		t.Fatalf("a.txt = %q", data)
	}
}

func TestGeminiInteractivePromptAndHooks(t *testing.T) {
	t.Parallel()
	// Installed under the tool's name, as the tests of owt do.
	gemini := filepath.Join(t.TempDir(), "gemini")
	if err := os.Symlink(binPath, gemini); err != nil {
		t.Fatal(err)
	}
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".gemini", "settings.json"), `{
  "hooks": {
    "enabled": true,
    "BeforeAgent": [{"hooks": [{"type": "command", "command": "cat > \"$OUT/before.json\""}]}],
    "AfterAgent": [{"hooks": [{"type": "command", "command": "cat > \"$OUT/after.json\"; echo \"$GEMINI_PROJECT_DIR\" > \"$OUT/env\"", "timeout": 10000}]}]
  }
}`)
	a := startAgent(t, agentConfig{program: gemini, dir: dir, env: []string{"OUT=" + out},
		args: []string{"-i", "hello gemini"}})
	a.waitScreen(0, "esc to cancel")
	a.waitScreen(0, "Type your message")
	p := a.waitEvent(1, is("prompt"))
	if p["text"] != "hello gemini" || p["source"] != "argv" {
		t.Fatalf("prompt event = %v", p)
	}
	if start := a.find(is("start"))[0]; start["persona"] != "gemini" {
		t.Fatalf("persona = %v", start["persona"])
	}
	a.waitEvent(1, isHook("AfterAgent"))
	after := readJSON(t, filepath.Join(out, "after.json"))
	if after["hook_event_name"] != "AfterAgent" || after["prompt"] != "hello gemini" ||
		after["prompt_response"] != "Done: hello gemini" {
		t.Fatalf("AfterAgent hook input = %v", after)
	}
	if before := readJSON(t, filepath.Join(out, "before.json")); before["prompt"] != "hello gemini" {
		t.Fatalf("BeforeAgent hook input = %v", before)
	}
	if env, _ := os.ReadFile(filepath.Join(out, "env")); strings.TrimSpace(string(env)) != dir {
		t.Fatalf("GEMINI_PROJECT_DIR = %q", env)
	}
}

func TestCodexNotify(t *testing.T) {
	t.Parallel()
	dir, out := t.TempDir(), t.TempDir()
	target := filepath.Join(out, "notify.json")
	// sh -c SCRIPT $0 $1: the event JSON arrives as the last argument, $1.
	var notify bytes.Buffer
	enc := json.NewEncoder(&notify)
	enc.SetEscapeHTML(false)
	if err := enc.Encode([]string{"/bin/sh", "-c", `printf '%s' "$1" > "$0"`, target}); err != nil {
		t.Fatal(err)
	}
	a := startAgent(t, agentConfig{persona: "codex", dir: dir,
		args: []string{"-c", "notify=" + strings.TrimSpace(notify.String()), "--sandbox", "workspace-write", "do it"}})
	a.waitScreen(0, "esc to interrupt")
	waitFile(t, target)
	n := readJSON(t, target)
	if n["type"] != "agent-turn-complete" || n["cwd"] != dir || fmt.Sprint(n["input-messages"]) != "[do it]" ||
		n["last-assistant-message"] != "Done: do it" || n["thread-id"] == "" || n["turn-id"] == "" {
		t.Fatalf("notify payload = %v", n)
	}
	a.waitScreen(0, "⏎ send")
}

func TestCodexNotifyFromConfigFile(t *testing.T) {
	t.Parallel()
	codexHome, out := t.TempDir(), t.TempDir()
	target := filepath.Join(out, "notify.json")
	writeFile(t, filepath.Join(codexHome, "config.toml"), fmt.Sprintf(`model = "o3"
notify = [
  "/bin/sh", "-c", 'printf "%%s" "$1" > "$0"',  # the JSON is $1
  %q,
]

[notify_table]
notify = ["wrong"]
`, target))
	a := startAgent(t, agentConfig{persona: "codex", env: []string{"CODEX_HOME=" + codexHome}})
	a.waitEvent(1, is("ready"))
	a.write("first\r")
	waitFile(t, target)
	if n := readJSON(t, target); fmt.Sprint(n["input-messages"]) != "[first]" {
		t.Fatalf("notify payload = %v", n)
	}
}

func TestAiderTakesNoPromptArgument(t *testing.T) {
	t.Parallel()
	a := startAgent(t, agentConfig{persona: "aider", args: []string{"--model", "sonnet", "main.go"}})
	a.waitEvent(1, is("ready"))
	a.waitScreen(0, "Aider v0.0.0-fake")
	time.Sleep(150 * time.Millisecond)
	if n := len(a.find(is("prompt"))); n != 0 {
		t.Fatalf("aider got %d prompts from argv", n)
	}
	m := a.mark()
	a.write("refactor it\r")
	a.waitScreen(m, "Waiting for fake-model")
	a.waitScreen(m, "Done: refactor it")
	if p := a.waitEvent(1, is("prompt")); p["text"] != "refactor it" {
		t.Fatalf("prompt = %v", p)
	}
}

func TestHeadless(t *testing.T) {
	t.Parallel()
	cases := []struct {
		persona string
		args    []string
		want    string
	}{
		{"claude", []string{"-p", "say hi"}, "say hi"},
		{"codex", []string{"exec", "--full-auto", "fix it"}, "fix it"},
		{"gemini", []string{"-p", "explain"}, "explain"},
		{"opencode", []string{"run", "list files"}, "list files"},
		{"aider", []string{"--message", "add tests"}, "add tests"},
		{"amp", []string{"-x", "ship it"}, "ship it"},
		{"droid", []string{"exec", "--skip-permissions-unsafe", "go"}, "go"},
	}
	for _, c := range cases {
		logPath := filepath.Join(t.TempDir(), "log.jsonl")
		cmd := exec.Command(binPath, c.args...)
		cmd.Dir = t.TempDir()
		cmd.Env = append(baseEnv(t.TempDir()), "OWT_FAKE_PERSONA="+c.persona, "OWT_FAKE_LOG="+logPath,
			"OWT_FAKE_WORK=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v", c.persona, c.args, err)
		}
		if got := string(out); got != "Done: "+c.want+"\n" {
			t.Errorf("%s %v printed %q", c.persona, c.args, got)
		}
		log, _ := os.ReadFile(logPath)
		if !strings.Contains(string(log), `{"event":"prompt","text":"`+c.want+`"`) {
			t.Errorf("%s %v: log has no prompt:\n%s", c.persona, c.args, log)
		}
	}
}

// A headless run given OWT_FAKE_ANSWER_DELAY thinks that long before it
// answers, and ends at once on SIGTERM, as a slow real tool a deadline
// ends.
func TestHeadlessAnswerDelay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	answer := filepath.Join(dir, "answer.txt")
	writeFile(t, answer, `{"verdict":"pass"}`)
	logPath := filepath.Join(dir, "log.jsonl")
	cmd := exec.Command(binPath, "-p", "review this")
	cmd.Dir = dir
	cmd.Env = append(baseEnv(t.TempDir()), "OWT_FAKE_PERSONA=claude", "OWT_FAKE_LOG="+logPath, "OWT_FAKE_WORK=0",
		"OWT_FAKE_ANSWER="+answer, "OWT_FAKE_ANSWER_DELAY=1h")
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		log, _ := os.ReadFile(logPath)
		return strings.Contains(string(log), `"event":"thinking","for":"1h0m0s"`)
	})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || out.String() != "" {
		t.Fatalf("a run ended while thinking answered %q (%v)", out.String(), err)
	}

	// Without the delay it answers at once.
	cmd = exec.Command(binPath, "-p", "review this")
	cmd.Dir = dir
	cmd.Env = append(baseEnv(t.TempDir()), "OWT_FAKE_PERSONA=claude", "OWT_FAKE_WORK=0", "OWT_FAKE_ANSWER="+answer)
	if got, err := cmd.Output(); err != nil || string(got) != "{\"verdict\":\"pass\"}\n" {
		t.Fatalf("got %q, %v", got, err)
	}
}

// $HOME/.fakeagent.env gives the OWT_FAKE_* settings the environment
// lacks (a run by owt's monitor, which drops OWT_*).
func TestEnvFileFillsInMissingSettings(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	answer := filepath.Join(dir, "answer.txt")
	writeFile(t, answer, "from the file")
	logPath := filepath.Join(dir, "log.jsonl")
	writeFile(t, filepath.Join(home, ".fakeagent.env"), "OWT_FAKE_ANSWER="+answer+"\nOWT_FAKE_LOG="+logPath+"\n")
	run := func(env ...string) string {
		cmd := exec.Command(binPath, "-p", "review this")
		cmd.Dir = dir
		cmd.Env = append(baseEnv(home), append([]string{"OWT_FAKE_PERSONA=claude", "OWT_FAKE_WORK=0"}, env...)...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if got := run(); got != "from the file\n" {
		t.Fatalf("got %q", got)
	}
	if log, _ := os.ReadFile(logPath); !strings.Contains(string(log), `"mode":"headless"`) {
		t.Fatalf("the log of the file was not written: %q", log)
	}
	other := filepath.Join(dir, "other.txt")
	writeFile(t, other, "from the environment")
	if got := run("OWT_FAKE_ANSWER=" + other); got != "from the environment\n" {
		t.Fatalf("the environment must win: got %q", got)
	}
}

// ---- unit tests ----

// TestPersonaPatterns checks the documented regexps of every persona
// against its own screens, as tmux capture-pane -p would print them.
func TestPersonaPatterns(t *testing.T) {
	now := time.Now()
	for name, p := range personas {
		t.Run(name, func(t *testing.T) {
			screens := map[string]string{}
			for label, st := range map[string]screenState{
				"idle":       {cwd: "/tmp/w", transcript: []string{"> earlier", "● Done: earlier"}},
				"idle-typed": {cwd: "/tmp/w", input: []rune("half typed")},
				"working":    {cwd: "/tmp/w", mode: modeWorking, workStart: now.Add(-3 * time.Second)},
				"asking": {cwd: "/tmp/w", mode: modeAsking, workStart: now,
					ask: &askPrompt{command: "make test"}},
			} {
				screens[label] = render(p, &st, 100, 40, now).text()
			}
			ready := regexp.MustCompile(p.patterns.ready)
			working := regexp.MustCompile(p.patterns.working)
			waiting := regexp.MustCompile(p.patterns.waiting)
			check := func(label string, re *regexp.Regexp, want bool) {
				if got := re.MatchString(screens[label]); got != want {
					t.Errorf("%q on the %s screen: match = %v, want %v\n%s", re, label, got, want, screens[label])
				}
			}
			for _, label := range []string{"idle", "idle-typed"} {
				check(label, ready, true)
				check(label, working, false)
				check(label, waiting, false)
			}
			check("working", working, true)
			check("working", waiting, false)
			check("working", ready, p.inputWhileWorking)
			check("asking", waiting, true)
			check("asking", working, false)
		})
	}
}

func TestParseArgs(t *testing.T) {
	cases := []struct {
		persona  string
		args     []string
		prompt   string
		headless bool
		unknown  string
	}{
		{"claude", []string{"--permission-mode", "plan", "--settings", "s.json", "do x"}, "do x", false, "[]"},
		{"claude", []string{"--dangerously-skip-permissions", "--weird", "do x"}, "do x", false, "[--weird]"},
		{"claude", []string{"-p", "--output-format", "json", "q"}, "q", true, "[]"},
		{"codex", []string{"-c", `notify=["a"]`, "--sandbox", "workspace-write", "task"}, "task", false, "[]"},
		{"codex", []string{"exec", "--full-auto", "task"}, "task", true, "[]"},
		{"gemini", []string{"-i", "task", "--yolo"}, "task", false, "[]"},
		{"gemini", []string{"--prompt-interactive=task"}, "task", false, "[]"},
		{"gemini", []string{"-p", "task"}, "task", true, "[]"},
		{"gemini", []string{"task"}, "task", true, "[]"},
		{"opencode", []string{"--agent", "plan", "--prompt", "task"}, "task", false, "[]"},
		{"opencode", []string{"run", "task", "two"}, "task two", true, "[]"},
		{"droid", []string{"task"}, "task", false, "[]"},
		{"droid", []string{"exec", "--skip-permissions-unsafe", "task"}, "task", true, "[]"},
		{"pi", []string{"task"}, "task", false, "[]"},
		{"pi", []string{"-p", "task"}, "task", true, "[]"},
		{"cursor-agent", []string{"--force", "task"}, "task", false, "[]"},
		{"aider", []string{"--model", "x", "file.py"}, "", false, "[]"},
		{"aider", []string{"--message", "task"}, "task", true, "[]"},
		{"amp", []string{"-x", "task"}, "task", true, "[]"},
		{"amp", []string{"task"}, "", false, "[]"},
		{"claude", []string{"--", "-not a flag"}, "-not a flag", false, "[]"},
	}
	for _, c := range cases {
		o := parseArgs(personas[c.persona].args, c.args)
		if o.prompt != c.prompt || o.headless != c.headless || fmt.Sprint(o.unknown) != c.unknown {
			t.Errorf("%s %q: prompt %q headless %v unknown %v", c.persona, c.args, o.prompt, o.headless, o.unknown)
		}
	}
	o := parseArgs(personas["claude"].args, []string{"--permission-mode", "plan"})
	if permissionMode(personas["claude"], o) != "plan" || bypassPermissions(personas["claude"], o) {
		t.Error("claude --permission-mode plan")
	}
	o = parseArgs(personas["codex"].args, []string{"--dangerously-bypass-approvals-and-sandbox"})
	if !bypassPermissions(personas["codex"], o) {
		t.Error("codex bypass flag ignored")
	}
}

func TestKeyDecoder(t *testing.T) {
	var d keyDecoder
	var keys []key
	for _, chunk := range []string{"a\x1b[20", "0~x\ry\x1b[2", "01~", "\x1b", "[A", "\xe2\x9c", "\xbb\r"} {
		keys = append(keys, d.feed([]byte(chunk))...)
	}
	var got []string
	for _, k := range keys {
		switch k.kind {
		case keyRune:
			got = append(got, string(k.r))
		case keyPaste:
			got = append(got, "paste:"+k.text)
		case keyUp:
			got = append(got, "up")
		case keyEnter:
			got = append(got, "enter")
		default:
			got = append(got, fmt.Sprint(k.kind))
		}
	}
	if want := "[a paste:x\ny up ✻ enter]"; fmt.Sprint(got) != want {
		t.Fatalf("keys = %q, want %s", got, want)
	}
	if keys := d.feed([]byte("\x1b")); len(keys) != 0 || !d.waiting() {
		t.Fatal("a lone ESC must wait for a possible sequence")
	}
	if keys := d.flush(); len(keys) != 1 || keys[0].kind != keyEsc {
		t.Fatalf("flush = %v, want Esc", keys)
	}
}

func TestParseTOMLStringArray(t *testing.T) {
	got, rest, err := parseTOMLStringArray(` [ "a\"b", 'c\d', "\u00e9" , # comment
	  "x" , ] tail`)
	if err != nil || fmt.Sprint(got) != `[a"b c\d é x]` || strings.TrimSpace(rest) != "tail" {
		t.Fatalf("got %q rest %q err %v", got, rest, err)
	}
	for _, bad := range []string{`"a"`, `["a"`, `["a" "b"]`, `[1]`} {
		if _, _, err := parseTOMLStringArray(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestParseScript(t *testing.T) {
	got := parseScript("do it\n  !write a.txt hi there\n!bogus\n!commit msg one\n!exit 3")
	want := "[{write a.txt hi there} {commit msg one} {exit 3}]"
	if fmt.Sprint(got) != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}

// The claude persona writes each turn to the transcript its hooks name,
// in Claude Code's format: the prompt as a user line, the answer as two
// content-block lines of one message, each with its usage (!usage sets
// it).
func TestClaudeWritesItsTranscript(t *testing.T) {
	t.Parallel()
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.local.json"), hookSettings(t, map[string][2]string{
		"Stop": {"", `cat > "$OUT/stop.json"`},
	}))
	a := startAgent(t, agentConfig{persona: "claude", dir: dir, env: []string{"OUT=" + out},
		args: []string{"count this\n!usage 7 3 20 40"}})
	a.waitEvent(1, isHook("Stop"))
	stop := readJSON(t, filepath.Join(out, "stop.json"))
	path, _ := stop["transcript_path"].(string)
	if want := "/.claude/projects/" + claudeProject(dir) + "/" + fmt.Sprint(stop["session_id"]) + ".jsonl"; !strings.HasSuffix(path, want) {
		t.Fatalf("transcript_path = %q, want …%s", path, want)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("transcript line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 || lines[0]["type"] != "user" || lines[1]["type"] != "assistant" || lines[2]["type"] != "assistant" {
		t.Fatalf("transcript = %s", data)
	}
	m1, m2 := lines[1]["message"].(map[string]any), lines[2]["message"].(map[string]any)
	if m1["id"] != m2["id"] || m1["model"] != claudeModel {
		t.Fatalf("assistant lines = %v / %v", m1, m2)
	}
	u := m2["usage"].(map[string]any)
	if u["input_tokens"] != float64(7) || u["output_tokens"] != float64(3) ||
		u["cache_creation_input_tokens"] != float64(20) || u["cache_read_input_tokens"] != float64(40) {
		t.Fatalf("usage = %v", u)
	}
}

// waitFor polls cond for up to 10s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The codex persona writes each turn to its rollout file under
// $CODEX_HOME/sessions/YYYY/MM/DD/, in codex's format: session_meta with
// the cwd first, then per turn a turn_context with the model and a
// token_count event with the session's running total.
func TestCodexWritesItsRollout(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	a := startAgent(t, agentConfig{persona: "codex", dir: dir, home: home,
		args: []string{"count this\n!usage 7 3 0 40\n!exit 0"}})
	if code := a.waitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	paths, _ := filepath.Glob(filepath.Join(home, ".codex", "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(paths) != 1 {
		t.Fatalf("rollout files = %v", paths)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("rollout line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 4 || lines[0]["type"] != "session_meta" || lines[0]["payload"].(map[string]any)["cwd"] != dir ||
		lines[2]["type"] != "turn_context" || lines[3]["type"] != "event_msg" {
		t.Fatalf("rollout = %s", data)
	}
	total := lines[3]["payload"].(map[string]any)["info"].(map[string]any)["total_token_usage"].(map[string]any)
	if total["input_tokens"] != float64(47) || total["cached_input_tokens"] != float64(40) || total["output_tokens"] != float64(3) {
		t.Fatalf("total_token_usage = %v", total)
	}
}

// The gemini persona registers its folder in ~/.gemini/projects.json and
// writes each turn to its chat file under ~/.gemini/tmp/<id>/chats/, the
// model's message appended again with its tokens.
func TestGeminiWritesItsChat(t *testing.T) {
	t.Parallel()
	dir, home := t.TempDir(), t.TempDir()
	a := startAgent(t, agentConfig{persona: "gemini", dir: dir, home: home,
		args: []string{"-i", "count this\n!usage 7 3 0 40\n!exit 0"}})
	if code := a.waitExit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	regData, err := os.ReadFile(filepath.Join(home, ".gemini", "projects.json"))
	if err != nil || json.Unmarshal(regData, &reg) != nil || reg.Projects[dir] == "" {
		t.Fatalf("projects.json = %s (%v)", regData, err)
	}
	paths, _ := filepath.Glob(filepath.Join(home, ".gemini", "tmp", reg.Projects[dir], "chats", "session-*.jsonl"))
	if len(paths) != 1 {
		t.Fatalf("chat files = %v", paths)
	}
	data, _ := os.ReadFile(paths[0])
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 5 {
		t.Fatalf("chat = %s", data)
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(lines[3]), &msg); err != nil {
		t.Fatal(err)
	}
	tok := msg["tokens"].(map[string]any)
	if msg["type"] != "gemini" || tok["input"] != float64(47) || tok["cached"] != float64(40) || tok["output"] != float64(3) {
		t.Fatalf("message = %v", msg)
	}
}

// Claude Code 2.1.330's --resume ID: a session whose transcript exists
// goes on under its id, no prompt; an unknown id exits 1 with its words.
func TestClaudeResumesAKnownSessionAndRefusesAnUnknownOne(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	first := startAgent(t, agentConfig{persona: "claude", home: home, dir: dir, args: []string{"Task one"}})
	start := first.waitEvent(1, is("start"))
	id, _ := start["session_id"].(string)
	first.waitEvent(1, is("prompt"))
	waitFile(t, filepath.Join(home, ".claude", "projects", claudeProject(dir), id+".jsonl"))
	_ = first.cmd.Process.Kill()

	again := startAgent(t, agentConfig{persona: "claude", home: home, dir: dir, args: []string{"--resume", id}})
	if ev := again.waitEvent(1, is("resume")); ev["session_id"] != id {
		t.Fatalf("resumed %v, want %s", ev["session_id"], id)
	}
	again.waitEvent(1, is("ready"))
	if got := again.find(is("prompt")); len(got) != 0 {
		t.Fatalf("a resume sends no prompt, got %v", got)
	}

	bad := startAgent(t, agentConfig{persona: "claude", home: home, dir: dir, args: []string{"-r", "no-such-id"}})
	if code := bad.waitExit(); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.Contains(bad.screen(), "No conversation found with session ID: no-such-id") {
		t.Fatalf("screen: %q", bad.screen())
	}
}

// A prompt with no script of its own plays the first block of the
// playbook its first line matches (what follows it, such as the other
// agents' tasks, does not count); $OWT_NAME is the worktree's name.
func TestPlaybook(t *testing.T) {
	path := filepath.Join(t.TempDir(), "playbook")
	writeFile(t, path, "# the demo's\nCheckout page\n!write checkout.html <h1>Checkout</h1>\n!commit Add a checkout page\n\n"+
		"lonely match line\n\n*\n!write notes/$OWT_NAME.md notes\n")
	t.Setenv("OWT_NAME", "cart")
	if got, want := playbookFor(path, "Add a checkout page with a cart summary"), "!write checkout.html <h1>Checkout</h1>\n!commit Add a checkout page"; got != want {
		t.Fatalf("checkout: got %q, want %q", got, want)
	}
	if got, want := playbookFor(path, "Fix the login\n- checkout: Add a checkout page"), "!write notes/cart.md notes"; got != want {
		t.Fatalf("a match past the first line: got %q, want %q", got, want)
	}
	if got, want := playbookFor(path, "lonely match line"), "!write notes/cart.md notes"; got != want {
		t.Fatalf("a block with no script is none: got %q, want %q", got, want)
	}
	if got := playbookFor("", "anything"); got != "" {
		t.Fatalf("no playbook: got %q", got)
	}
	if got := playbookFor(filepath.Join(t.TempDir(), "missing"), "anything"); got != "" {
		t.Fatalf("missing playbook: got %q", got)
	}
}
