// Package e2e drives the built owt binary against a real tmux server on a
// private socket, real git repositories, and the fake agent of
// testdata/fakeagent standing in for the AI tools. Nothing else is faked.
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	owtBin  string // the built owt
	toolDir string // fake agent installed under each tool's name
	fakeBin string
)

// personas are the names the fake agent answers to, like the real tools.
var personas = []string{"claude", "codex", "gemini", "opencode", "aider", "droid", "pi", "amp", "cursor-agent"}

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("tmux"); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: tmux is required (apt-get install tmux)")
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "owt-e2e-bin-")
	if err != nil {
		panic(err)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		root := moduleRoot()
		owtBin = filepath.Join(dir, "owt")
		fakeBin = filepath.Join(dir, "fakeagent")
		for _, b := range [][2]string{{owtBin, "./cmd/owt"}, {fakeBin, "./testdata/fakeagent"}} {
			cmd := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", b[0], b[1])
			cmd.Dir = root
			if out, err := cmd.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "build %s: %v\n%s", b[1], err, out)
				return 1
			}
		}
		toolDir = filepath.Join(dir, "tools")
		if err := os.MkdirAll(toolDir, 0o755); err != nil {
			panic(err)
		}
		for _, p := range personas {
			if err := os.Symlink(fakeBin, filepath.Join(toolDir, p)); err != nil {
				panic(err)
			}
		}
		flag.Parse()
		if d := testTimeout(); d > 0 {
			// go test's -timeout panics without running any cleanup: just
			// before it, end every world still up, so no tmux server,
			// monitor or agent outlives the test binary.
			time.AfterFunc(d-d/20, func() {
				liveEnvs.endAll()
				_ = os.RemoveAll(dir)
			})
		}
		return m.Run()
	}()
	os.Exit(code)
}

func testTimeout() time.Duration {
	f := flag.Lookup("test.timeout")
	if f == nil {
		return 0
	}
	d, _ := f.Value.(flag.Getter).Get().(time.Duration)
	return d
}

// liveEnvs are the worlds whose cleanup has not run yet.
var liveEnvs = envSet{m: map[*Env]bool{}}

type envSet struct {
	mu sync.Mutex
	m  map[*Env]bool
}

func (s *envSet) add(e *Env)    { s.mu.Lock(); s.m[e] = true; s.mu.Unlock() }
func (s *envSet) remove(e *Env) { s.mu.Lock(); delete(s.m, e); s.mu.Unlock() }

// endAll kills each live world's tmux server and every process of it, and
// removes its temp dirs.
func (s *envSet) endAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for e := range s.m {
		cmd := exec.Command("tmux", "kill-server")
		cmd.Env = e.Environ()
		_ = cmd.Run()
		e.killWorld()
		_ = os.RemoveAll(filepath.Dir(e.Root))
	}
}

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Env is one isolated world: temp HOME and XDG dirs, a private tmux server
// (base-index 1, pane-base-index 1, like many users' configs), and the fake
// agents on PATH.
type Env struct {
	t      *testing.T
	Root   string
	Home   string
	vars   map[string]string
	Socket string
	Log    string // fake agent log (JSONL)
}

// NewEnv starts a private tmux server and returns the environment. The
// server and every temp dir are removed when the test ends.
func NewEnv(t *testing.T) *Env {
	t.Helper()
	root := t.TempDir()
	e := &Env{t: t, Root: root, Home: filepath.Join(root, "home"), Log: filepath.Join(root, "agent.log")}
	tmuxDir := filepath.Join(root, "tmux")
	for _, d := range []string{e.Home, tmuxDir} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	e.vars = map[string]string{
		"HOME":                e.Home,
		"XDG_CONFIG_HOME":     filepath.Join(root, "config"),
		"XDG_STATE_HOME":      filepath.Join(root, "state"),
		"XDG_CACHE_HOME":      filepath.Join(root, "cache"),
		"XDG_DATA_HOME":       filepath.Join(root, "data"),
		"XDG_RUNTIME_DIR":     filepath.Join(root, "run"),
		"TMUX_TMPDIR":         tmuxDir,
		"TMPDIR":              filepath.Join(root, "tmp"), // what owt and the tools leave in a temp dir goes with the test
		"PATH":                toolDir + string(os.PathListSeparator) + os.Getenv("PATH"),
		"SHELL":               "/bin/sh",
		"TERM":                "xterm-256color",
		"LANG":                "C.UTF-8",
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
		"GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
		"OWT_FAKE_LOG":     e.Log,
		"OWT_FAKE_STARTUP": "300ms",
		"OWT_FAKE_WORK":    "500ms",
	}
	require.NoError(t, os.MkdirAll(e.vars["XDG_RUNTIME_DIR"], 0o700))
	require.NoError(t, os.MkdirAll(e.vars["TMPDIR"], 0o700))
	e.Socket = filepath.Join(tmuxDir, fmt.Sprintf("tmux-%d", os.Getuid()), "default")
	// -f /dev/null: never the developer's tmux.conf. The server keeps this
	// environment, so panes see the fake agents and the temp XDG dirs.
	e.Tmux("-f", "/dev/null", "new-session", "-d", "-s", "harness", "-x", "200", "-y", "50")
	e.Tmux("set-option", "-g", "base-index", "1")
	e.Tmux("set-option", "-g", "pane-base-index", "1")
	e.Tmux("set-option", "-g", "history-limit", "5000")
	liveEnvs.add(e)
	t.Cleanup(func() {
		cmd := exec.Command("tmux", "kill-server")
		cmd.Env = e.Environ()
		_ = cmd.Run()
		e.waitProcessesGone()
		liveEnvs.remove(e)
	})
	return e
}

// ciVars mark a CI machine; the isolated world is a user at a terminal, and
// the real agent CLIs turn headless when they see these (gemini exits 55 on
// an untrusted folder instead of asking).
var ciVars = map[string]bool{"CI": true, "GITHUB_ACTIONS": true, "CONTINUOUS_INTEGRATION": true, "BUILD_NUMBER": true, "RUN_ID": true}

// Environ is the process environment of the isolated world (no TMUX: owt
// runs "outside tmux" unless a test says otherwise; no CI markers).
func (e *Env) Environ(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k := strings.SplitN(kv, "=", 2)[0]
		if _, ok := e.vars[k]; ok || k == "TMUX" || k == "TMUX_PANE" || strings.HasPrefix(k, "OWT_") || ciVars[k] {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range e.vars {
		env = append(env, k+"="+v)
	}
	return append(env, extra...)
}

// Set changes a variable for later commands (and for a tmux server started later).
func (e *Env) Set(k, v string) { e.vars[k] = v }

// Tmux runs tmux against the private server and fails the test on error.
func (e *Env) Tmux(args ...string) string {
	e.t.Helper()
	out, err := e.TryTmux(args...)
	require.NoError(e.t, err, "tmux %v: %s", args, out)
	return out
}

// TryTmux runs tmux and returns its output and error.
func (e *Env) TryTmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", args...)
	cmd.Env = e.Environ()
	out, err := cmd.CombinedOutput()
	return strings.TrimRight(string(out), "\n"), err
}

// Result is a finished owt run.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Owt runs the owt binary in dir.
func (e *Env) Owt(dir string, args ...string) Result {
	return e.OwtIn(dir, nil, "", args...)
}

// OwtIn runs owt with extra environment and stdin.
func (e *Env) OwtIn(dir string, extra []string, stdin string, args ...string) Result {
	e.t.Helper()
	cmd := exec.Command(owtBin, args...)
	cmd.Dir = dir
	cmd.Env = e.Environ(extra...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run owt: %v", err)
	}
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}
}

// MustOwt runs owt and fails the test unless it exits 0.
func (e *Env) MustOwt(dir string, args ...string) string {
	e.t.Helper()
	r := e.Owt(dir, args...)
	require.Equal(e.t, 0, r.Code, "owt %v failed:\nstdout: %s\nstderr: %s", args, r.Stdout, r.Stderr)
	return r.Stdout
}

// Git runs git in dir and returns its trimmed output.
func (e *Env) Git(dir string, args ...string) string {
	e.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = e.Environ()
	out, err := cmd.CombinedOutput()
	require.NoError(e.t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// NewRepo makes a git repo named name with one commit on main.
func (e *Env) NewRepo(name string) string {
	e.t.Helper()
	dir := filepath.Join(e.Root, name)
	require.NoError(e.t, os.MkdirAll(dir, 0o755))
	e.Git(dir, "init", "-q", "-b", "main")
	e.WriteFile(dir, "README.md", "# "+name+"\n")
	e.WriteFile(dir, ".gitignore", ".env\n.env.*\nnode_modules/\n*.log\n")
	e.Git(dir, "add", ".")
	e.Git(dir, "commit", "-q", "-m", "init")
	return dir
}

// WriteFile writes dir/rel, creating parents.
func (e *Env) WriteFile(dir, rel, content string) {
	e.t.Helper()
	p := filepath.Join(dir, rel)
	require.NoError(e.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(e.t, os.WriteFile(p, []byte(content), 0o644))
}

// Eventually polls cond until it holds or the timeout passes.
func (e *Env) Eventually(timeout time.Duration, what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Item is the part of owt list --json the tests read.
type Item struct {
	Name, Repo, Branch, Base, Path, Session, Tool, Status, Task string
	Live                                                        bool
	ExitCode                                                    *int `json:"exit_code"`
	Port                                                        int
	Ahead, Behind, Dirty, Insertions, Deletions                 int
	StatusSource                                                string `json:"status_source"`
}

// List returns owt list --json --fresh for the repo in dir.
func (e *Env) List(dir string, args ...string) []Item {
	e.t.Helper()
	out := e.MustOwt(dir, append([]string{"list", "--json", "--fresh"}, args...)...)
	var items []Item
	require.NoError(e.t, json.Unmarshal([]byte(out), &items), out)
	return items
}

// Find returns the item called name.
func (e *Env) Find(dir, name string) Item {
	e.t.Helper()
	for _, it := range e.List(dir) {
		if it.Name == name {
			return it
		}
	}
	e.t.Fatalf("no item %q in owt list", name)
	return Item{}
}

// Capture returns the visible text of a pane or session target.
func (e *Env) Capture(target string) string {
	out, _ := e.TryTmux("capture-pane", "-p", "-J", "-t", target)
	return out
}

// AgentEvent is one line of the fake agent's log.
type AgentEvent struct {
	Event   string            `json:"event"`
	Persona string            `json:"persona"`
	Argv    []string          `json:"argv"`
	Cwd     string            `json:"cwd"`
	Env     map[string]string `json:"env"`
	Text    string            `json:"text"`
	Name    string            `json:"name"`
	Code    int               `json:"code"`
	Agent   string            `json:"agent"` // OWT_NAME of the session
}

// Events reads the fake agent log.
func (e *Env) Events() []AgentEvent {
	f, err := os.Open(e.Log)
	if err != nil {
		return nil
	}
	defer f.Close()
	var evs []AgentEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var ev AgentEvent
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			evs = append(evs, ev)
		}
	}
	return evs
}

// Prompts returns the prompts the agent of worktree name received, in order.
func (e *Env) Prompts(name string) []string {
	var out []string
	for _, ev := range e.Events() {
		if ev.Event == "prompt" && ev.Agent == name {
			out = append(out, ev.Text)
		}
	}
	return out
}

// Start returns the start event of the agent of worktree name.
func (e *Env) Start(name string) (AgentEvent, bool) {
	for _, ev := range e.Events() {
		if ev.Event == "start" && ev.Agent == name {
			return ev, true
		}
	}
	return AgentEvent{}, false
}

// WaitPrompts waits until the agent of worktree name received n prompts.
func (e *Env) WaitPrompts(name string, n int) []string {
	e.t.Helper()
	e.Eventually(15*time.Second, fmt.Sprintf("%d prompt(s) for %s", n, name), func() bool { return len(e.Prompts(name)) >= n })
	return e.Prompts(name)
}

// WaitScreen waits until the pane of target shows text.
func (e *Env) WaitScreen(target, text string) string {
	e.t.Helper()
	var screen string
	e.Eventually(15*time.Second, fmt.Sprintf("%q on screen of %s", text, target), func() bool {
		screen = e.Capture(target)
		return strings.Contains(screen, text)
	})
	return screen
}

// Sessions lists session names of the private server.
func (e *Env) Sessions() []string {
	out, err := e.TryTmux("list-sessions", "-F", "#{session_name}")
	if err != nil {
		return nil
	}
	return strings.Split(out, "\n")
}

func itoa(n int) string { return fmt.Sprint(n) }

// AttachClient attaches a real tmux client, running in a pseudo-terminal,
// to session and returns the client's name (its tty).
func (e *Env) AttachClient(session string) string {
	e.t.Helper()
	name, _ := e.attach(session) // the terminal closes when the test ends
	return name
}

func (e *Env) clients() map[string]bool {
	out, _ := e.TryTmux("list-clients", "-F", "#{client_name}")
	m := map[string]bool{}
	for _, c := range strings.Split(out, "\n") {
		if c != "" {
			m[c] = true
		}
	}
	return m
}

// ClientSession is the session a client is looking at.
func (e *Env) ClientSession(client string) string {
	out, _ := e.TryTmux("display-message", "-p", "-c", client, "#{client_session}")
	return out
}
