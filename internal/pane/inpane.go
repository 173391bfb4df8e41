package pane

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// The agent is its pane's own process. Once the setup is done, the runner
// replaces itself with the agent (exec: same process, so tmux names the
// pane after the tool and Ctrl-Z and Ctrl-C reach it as in any pane), and
// no process of owt's stays in the pane while the agent runs: at 500
// agents a waiting process per pane, even one of a few hundred KiB, was
// most of owt's memory (issue 36).
//
// Before it does, it asks tmux to keep the pane when the agent exits and
// to start "owt _run --died" in it then (tmux.WhenPaneDies): that runner
// records the exit code, shows the agent's last screen again (respawning
// a pane clears it) and leaves the user's shell in the worktree, as
// before. A resume that the agent's exit shows failed starts the tool
// fresh from there.
//
// What the runner watched while the agent started (its ready screen, the
// task to paste, the first turn, the proof of a resume) is watched by a
// short-lived "owt _run --watch" process outside the pane, which ends once
// the start is settled or the agent is gone.
//
// Where tmux cannot arm the pane (no pane hooks before tmux 3.2), the
// runner stays the agent's parent and waits for it itself.

// watchPlan is what the runner hands its watcher on stdin: what it knows
// of the start that the record no longer says (the first prompt leaves
// the record when the agent takes it).
type watchPlan struct {
	PID     int       `json:"pid"`
	Mode    string    `json:"mode"` // watchStart or watchResume
	Working bool      `json:"working,omitempty"`
	Paste   bool      `json:"paste,omitempty"`
	Prompt  string    `json:"prompt,omitempty"`
	Session string    `json:"session,omitempty"`
	Started time.Time `json:"started,omitzero"`
}

const (
	watchStart  = "start"
	watchResume = "resume"
)

// diedEnv is the environment the runner after the agent needs and the
// pane's session may not have: who it is (the session's own variables,
// or a swarm window's), and where owt keeps its state.
var diedEnv = []string{"OWT_NAME", "OWT_REPO", "OWT_PORT", state.LifeEnv,
	"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"}

// execInPane replaces the runner with the agent (path, argv, env: nil is
// the runner's own) in rec's worktree, its pane armed for the agent's exit
// and its watcher started with plan. It returns only when that could not
// be done: nothing is left armed then, the watcher is told to stand down,
// and the caller starts and waits for the agent itself.
func (w *runner) execInPane(rec *state.Record, pane, path string, argv, env []string, plan watchPlan) error {
	if env == nil {
		env = os.Environ()
	}
	keep := map[string]string{}
	for _, k := range diedEnv {
		if v, ok := os.LookupEnv(k); ok {
			keep[k] = v
		}
	}
	// The runner after the agent reads the screen from this owt's state
	// folder, whatever the server's environment says by then.
	keep["XDG_STATE_HOME"] = filepath.Dir(state.Dir())
	screen, err := newScreenFile()
	if err != nil {
		return err
	}
	if err := w.Tmux.WhenPaneDies(pane, rec.Path, screen, keep, []string{w.Self, "_run", "--died", screen}); err != nil {
		return err
	}
	plan.PID = os.Getpid() // the agent's, after the exec
	gate, err := w.startWatch(plan)
	if err != nil {
		w.Tmux.Disarm(pane)
		return err
	}
	fail := func(err error) error {
		_, _ = gate.WriteString("abort") // the watcher stands down
		_ = gate.Close()
		w.Tmux.Disarm(pane)
		return err
	}
	if err := os.Chdir(rec.Path); err != nil {
		return fail(fmt.Errorf("start %s in %s: %w", rec.Tool, rec.Path, err))
	}
	signal.Reset()
	err = syscall.Exec(path, argv, proc.ExecEnv(env))
	return fail(fmt.Errorf("start %s: %w", rec.Tool, err))
}

// screensDir is where the pane-died hook leaves an agent's last screen for
// the runner after it: a private folder (the screen may hold secrets).
func screensDir() string { return filepath.Join(state.Dir(), "died") }

// newScreenFile names a file for one agent's last screen. Files of an
// hour ago are left over (the runner after an agent takes its file within
// a second of the exit; one that never started leaves it), and go.
func newScreenFile() (string, error) {
	dir := screensDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("make %s: %w", dir, err)
	}
	if old, err := os.ReadDir(dir); err == nil {
		for _, e := range old {
			if fi, err := e.Info(); err == nil && filepath.Ext(e.Name()) == ".screen" && time.Since(fi.ModTime()) > time.Hour {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return filepath.Join(dir, hex.EncodeToString(b[:])+".screen"), nil
}

// takeScreen reads and removes the screen file the hook wrote: only a
// file of screensDir's, whatever path "owt _run --died" was given.
func takeScreen(path string) string {
	if path == "" || filepath.Dir(path) != screensDir() || filepath.Ext(path) != ".screen" {
		return ""
	}
	b, _ := os.ReadFile(path)
	_ = os.Remove(path)
	return string(b)
}

// startWatch starts "owt _run --watch", which starts the watcher proper
// in a session of its own and exits: the watcher is then no child of the
// agent (a child it never waits for would stay a zombie under it). The
// watcher reads plan, then waits for the pipe returned (close-on-exec)
// to close: the exec of the agent closes it; a runner whose exec failed
// writes to it first, and the watcher stands down.
func (w *runner) startWatch(plan watchPlan) (*os.File, error) {
	data, err := json.Marshal(plan)
	if err != nil {
		return nil, err
	}
	r, wr, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start the agent's watcher: %w", err)
	}
	defer r.Close()
	cmd := exec.Command(w.Self, "_run", "--watch")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		wr.Close()
		return nil, fmt.Errorf("start the agent's watcher: %w", err)
	}
	_ = r.Close()
	// The watcher reads the plan as it starts; a plan too big for the
	// pipe waits for it. A watcher that never started fails the write.
	_, werr := wr.Write(data)
	if err := cmd.Wait(); err != nil {
		wr.Close()
		return nil, fmt.Errorf("start the agent's watcher: %w", err)
	}
	if werr != nil {
		wr.Close()
		return nil, fmt.Errorf("start the agent's watcher: %w", werr)
	}
	return wr, nil
}

// Watch is "owt _run --watch": it starts itself again in a session of its
// own, as the watcher (detached), and returns; the runner waits for it.
func Watch() error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("start the agent's watcher: %w", err)
	}
	cmd := exec.Command(self, "_run", "--watching")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Not in the pane's process group: Ctrl-C there is the agent's.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the agent's watcher: %w", err)
	}
	return cmd.Process.Release()
}

// Watching is the watcher ("owt _run --watching"): it reads its plan on
// stdin, waits for the agent to be the pane's process (stdin closes at
// the runner's exec; anything written first means the exec failed), and
// watches the agent's start as the runner did when it was the agent's
// parent, until the start is settled or the agent is gone.
func Watching(tm *tmux.Client, in io.Reader, out io.Writer) error {
	var plan watchPlan
	dec := json.NewDecoder(in)
	if err := dec.Decode(&plan); err != nil || plan.PID <= 0 {
		return fmt.Errorf("owt _run --watching reads its plan from owt _run: %v", err)
	}
	if rest, _ := io.ReadAll(io.MultiReader(dec.Buffered(), in)); strings.TrimSpace(string(rest)) != "" {
		return nil // the agent did not start in the pane: the runner waits for it itself
	}
	w, rec, err := open(tm, os.Getenv("OWT_REPO"), os.Getenv("OWT_NAME"))
	if err != nil {
		return err
	}
	prof, ok := w.Tools[rec.Tool]
	if !ok {
		return fmt.Errorf("unknown tool %q", rec.Tool)
	}
	rec.Prompt = plan.Prompt
	w.agentGone = func() bool { return !alive(plan.PID) }
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		for alive(plan.PID) {
			time.Sleep(100 * time.Millisecond)
		}
	}()
	switch plan.Mode {
	case watchResume:
		w.watchResume(rec, prof, plan.Session, plan.Started, gone)
	default:
		done := make(chan struct{})
		go func() {
			defer close(done)
			w.whenReady(rec, prof, plan.Working, plan.Paste, out)
		}()
		select {
		case <-done:
		case <-gone:
		}
	}
	return nil
}

// alive reports whether process pid is still there.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Died is "owt _run --died SCREEN": tmux started it in the pane whose
// agent has just exited (tmux.WhenPaneDies), with the file it left the
// agent's last screen in. It shows that screen again, records the exit,
// and leaves the user's shell in the worktree; a tool that exited before
// it proved its resume is started fresh instead.
func Died(tm *tmux.Client, screenFile string, out io.Writer) error {
	// Only the agent's own process carries an agent id (withAgentID).
	_ = os.Unsetenv(state.AgentIDEnv)
	c, known := tm.PaneDied(os.Getenv("TMUX_PANE"))
	screen := takeScreen(screenFile)
	showAgain(out, screen)
	var code *int
	if known {
		code = &c
	}
	w, rec, err := open(tm, os.Getenv("OWT_REPO"), os.Getenv("OWT_NAME"))
	if err != nil {
		fmt.Fprintf(out, "owt: %v\n", err)
		return execShell(out, "")
	}
	if rec.Resume != nil && rec.Resume.Outcome == state.ResumeResuming {
		why := rec.Tool + " exited"
		if code != nil {
			why = fmt.Sprintf("%s exited with code %d", rec.Tool, *code)
		}
		if line := exitWords(plainText(screen)); line != "" {
			why += ": " + line
		}
		if w.settleResume(rec, state.ResumeFresh, why) {
			fmt.Fprintf(out, "owt: %s could not resume session %s (%s).\n", rec.Tool, rec.Resume.Session, why)
			if rec, err = w.Get(rec.Name); err != nil {
				fmt.Fprintf(out, "owt: %v\n", err)
				return execShell(out, "")
			}
			n, err := w.runAgent(rec, out)
			if err != nil {
				fmt.Fprintf(out, "owt: %v\n", err)
			}
			return w.finish(tm, rec, n, out)
		}
	}
	return w.finishCode(tm, rec, code, out)
}

// showAgain writes the agent's last screen (as the hook captured it, with
// its colours) back into the pane, which respawning cleared: without the
// row tmux's "Pane is dead" notice took, nor the blank rows under the
// text.
func showAgain(out io.Writer, screen string) {
	rows := strings.Split(screen, "\n")
	for len(rows) > 0 {
		last := plainText(rows[len(rows)-1])
		if strings.TrimSpace(last) != "" && !strings.HasPrefix(last, "Pane is dead") {
			break
		}
		rows = rows[:len(rows)-1]
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprint(out, "\x1b[H\x1b[2J"+strings.Join(rows, "\r\n")+"\x1b[0m\r\n")
}

// escapes are the terminal sequences capture-pane -e writes: SGR and the
// like (CSI), and hyperlinks (OSC).
var escapes = regexp.MustCompile(`\x1b\[[0-9;:?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)`)

// plainText is a captured screen without its terminal sequences.
func plainText(s string) string { return escapes.ReplaceAllString(s, "") }
