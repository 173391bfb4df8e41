// Package pane is what runs in an agent's tmux pane: "owt _run", the
// first process of every worktree session. It runs the setup where the
// user sees it, starts the agent with its task (as an argument, or pasted
// once the tool is ready), records the agent's exit and leaves the user a
// shell in the worktree.
package pane

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/setup"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"

	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// runner is a workspace seen from its pane's first process.
type runner struct {
	*workspace.Workspace
	// agentGone, when set, says the agent has exited: the watcher of a
	// start (Watching) asks it before it types into the pane, which the
	// runner after the agent may have taken over.
	agentGone func() bool
}

// RunSession is the first process of every worktree session ("owt _run").
// It runs the dependency install and setup commands where the user can see
// them, then replaces itself with the agent, started on its task; tmux
// starts "owt _run --died" in the pane when the agent exits, which records
// the exit code and replaces itself with the user's shell, so the pane
// stays usable (inpane.go). Where tmux cannot do that, the runner waits
// for the agent itself, and does the same.
//
// It never returns on success (the agent or the shell replaces it).
func RunSession(tm *tmux.Client, out io.Writer) error {
	name, repo := os.Getenv("OWT_NAME"), os.Getenv("OWT_REPO")
	if name == "" || repo == "" {
		return errors.New("owt _run runs inside a session made by owt new (OWT_NAME and OWT_REPO are not set)")
	}
	// Only the agent's own process carries an agent id (withAgentID): not
	// this runner, nor the shell it becomes, even when the tmux server
	// was started from inside an agent.
	_ = os.Unsetenv(state.AgentIDEnv)
	// Ctrl-C in the pane must stop the install or the agent, not the runner.
	signal.Notify(make(chan os.Signal, 1), os.Interrupt, syscall.SIGQUIT)

	w, rec, err := open(tm, repo, name)
	if err != nil {
		fmt.Fprintf(out, "owt: %v\n", err)
		return execShell(out, "")
	}
	// The session's @owt-* options, set on it by this pane's id (never a
	// bare set-option, which lands on whatever session tmux calls current).
	// A swarm worker's window is in its host's session, whose options
	// are the host's.
	if pane := os.Getenv("TMUX_PANE"); pane != "" && rec.Swarm == nil {
		if err := tm.MarkSession(pane, status.SessionOptions(rec), nil); err != nil {
			fmt.Fprintf(out, "owt: could not mark this session as %s's: %v\n", rec.Name, err)
		}
	}
	if !rec.NoSetup {
		w.runSetup(rec, out)
	}
	if rec.NoAgent {
		_, _ = status.Set(&w.Ledger, rec.Name, state.Idle, state.FromOwt, nil)
		return execShell(out, rec.Path)
	}
	code, err := w.runAgent(rec, out)
	if err != nil {
		fmt.Fprintf(out, "owt: %v\n", err)
	}
	return w.finish(tm, rec, code, out)
}

// Exited is "owt _run --exited CODE": owt-wait, which waited for the
// agent in its pane in an older owt (see inpane.go), hands its exit
// code back here, where the record is updated and the user's shell takes
// over: an agent started by an older owt still ends well after an update.
func Exited(tm *tmux.Client, code int, out io.Writer) error {
	takeForeground()
	w, rec, err := open(tm, os.Getenv("OWT_REPO"), os.Getenv("OWT_NAME"))
	if err != nil {
		fmt.Fprintf(out, "owt: %v\n", err)
		return execShell(out, "")
	}
	return w.finish(tm, rec, code, out)
}

// open is the runner of the agent called name in the repository at repo.
// A record of another life (the session's agent was deleted, and a new
// one given its name) is not this session's: it is never touched from
// here.
func open(tm *tmux.Client, repo, name string) (*runner, *state.Record, error) {
	ws, err := workspace.Open(repo, tm)
	if err != nil {
		return nil, nil, err
	}
	// This process's stderr is the pane, which the agent's TUI draws: a
	// line written there lands in its screen and can leave a row marked
	// wrapped, so a capture reads the box's border and footer as one row
	// of input. A corrupt record the runner finds is said in owt's log,
	// as the monitor says it.
	ws.Store.Warn = func(m string) {
		owtlog.Errorf("owt", owtlog.Fields{Repo: repo, Agent: name, Event: "state"}, "%s", m)
	}
	w := &runner{Workspace: ws}
	rec, err := w.Get(name)
	if life := os.Getenv(state.LifeEnv); err == nil && life != "" && rec.Life != life {
		return w, nil, fmt.Errorf("%s was deleted; owt knows another agent by that name now, not this session's: 'exit' closes it", name)
	}
	if errors.Is(err, state.ErrUnknownName) {
		return w, nil, fmt.Errorf("%s was deleted: owt no longer knows it; 'exit' closes this session", name)
	}
	return w, rec, err
}

// finish records the agent's exit and replaces the runner with the
// user's shell in the worktree.
func (w *runner) finish(tm *tmux.Client, rec *state.Record, code int, out io.Writer) error {
	return w.finishCode(tm, rec, &code, out)
}

// finishCode is finish with the exit code unknown when nil.
func (w *runner) finishCode(tm *tmux.Client, rec *state.Record, code *int, out io.Writer) error {
	exited := "exited"
	if code != nil {
		exited = fmt.Sprintf("exited with code %d", *code)
	}
	if cur, err := w.Get(rec.Name); errors.Is(err, state.ErrUnknownName) || err == nil && cur.Life != rec.Life {
		// Deleted while its agent ran: 'owt delete NAME' would fail, or
		// hit a later agent of the name.
		fmt.Fprintf(out, "\nowt: %s %s. %s was deleted, and its folder with it: 'exit' closes this session.\n", rec.Tool, exited, rec.Name)
		return execShell(out, "")
	}
	_, _ = status.Set(&w.Ledger, rec.Name, state.Exited, state.FromOwt, code)
	if pane := os.Getenv("TMUX_PANE"); pane != "" {
		// The window was named after the agent; the shell takes over.
		_ = tm.SetWindowOption(pane, "automatic-rename", "on")
	}
	where, remove := "the worktree", "'owt delete "+rec.Name+"' removes it"
	switch {
	case rec.Swarm != nil:
		remove = "'owt swarm stop " + rec.Swarm.Host + "' closes the swarm's windows"
	case rec.InPlace:
		where, remove = "your checkout", "'owt delete "+rec.Name+"' ends this session; the checkout and its branch stay"
	}
	fmt.Fprintf(out, "\nowt: %s %s. This shell is in %s; %s.\n", rec.Tool, exited, where, remove)
	return execShell(out, rec.Path)
}

// runSetup shows and runs the detected install, then [setup] commands. A
// failure is shown, kept on the record and logged (the agent's screen
// soon covers the pane's line), and does not stop the agent from
// starting. The lockfiles an install wrote where there were none are
// kept on the record with their digests: while unchanged they are owt's,
// not work (lifecycle.WorkFiles).
func (w *runner) runSetup(rec *state.Record, out io.Writer) {
	var steps []setup.Step
	if w.Config.Setup.Install {
		steps = setup.Detect(rec.Path)
	}
	for _, c := range w.Config.Setup.Commands {
		steps = append(steps, setup.Step{Label: "setup command", Argv: []string{"sh", "-c", c}})
	}
	var failed []string
	var made []state.MadeFile
	var dirs []string
	for _, s := range steps {
		fmt.Fprintf(out, "owt: %s: %s\n", s.Label, strings.Join(s.Argv, " "))
		absent := absentFiles(rec.Path, s.Lockfiles())
		absentDirs := absentFiles(rec.Path, s.Folders())
		cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
		cmd.Dir = rec.Path
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(out, "owt: %s failed: %v (continuing)\n", s.Label, err)
			failed = append(failed, s.Label+": "+err.Error())
			owtlog.Errorf("owt", owtlog.Fields{Repo: rec.Repo, Agent: rec.Name, Event: "setup"}, "%s: %s failed: %v", rec.Name, s.Label, err)
		}
		made = append(made, madeFiles(rec.Path, absent)...)
		for _, d := range madeDirs(rec.Path, absentDirs) {
			if !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	if len(failed) == 0 && len(made) == 0 && len(dirs) == 0 {
		return
	}
	err := w.Store.Update(func(f *state.File) error {
		r, ok := f.Records[rec.Name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, rec.Name)
		}
		r.SetupFailed, r.SetupMade, r.SetupDirs = failed, made, dirs
		return nil
	})
	if err != nil {
		fmt.Fprintf(out, "owt: could not record the setup of %s: %v\n", rec.Name, err)
	}
}

// absentFiles are the names, of those given, that dir does not have.
func absentFiles(dir string, names []string) []string {
	var out []string
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); errors.Is(err, fs.ErrNotExist) {
			out = append(out, n)
		}
	}
	return out
}

// madeFiles are the files among names that dir has now, as regular
// files, with the digest of what is in them.
func madeFiles(dir string, names []string) []state.MadeFile {
	var out []state.MadeFile
	for _, n := range names {
		if sum, ok := state.FileSHA256(filepath.Join(dir, n)); ok {
			out = append(out, state.MadeFile{Path: n, SHA256: sum})
		}
	}
	return out
}

// madeDirs are the names among those given that dir has now as folders
// (not links: a linked folder is the main checkout's).
func madeDirs(dir string, names []string) []string {
	var out []string
	for _, n := range names {
		if fi, err := os.Lstat(filepath.Join(dir, n)); err == nil && fi.IsDir() {
			out = append(out, n)
		}
	}
	return out
}

// runAgent starts the tool in the pane: as the pane's own process
// (execInPane: it returns only if that cannot be done), else as the
// runner's child in the foreground, waited for.
func (w *runner) runAgent(rec *state.Record, out io.Writer) (int, error) {
	prof, ok := w.Tools[rec.Tool]
	if !ok {
		w.settleResume(rec, state.ResumeFresh, fmt.Sprintf("unknown tool %q", rec.Tool))
		return 127, fmt.Errorf("unknown tool %q", rec.Tool)
	}
	if rec.Resume != nil && rec.Resume.Outcome == state.ResumePending {
		code, ran, err := w.resumeAgent(rec, prof, out)
		if ran {
			return code, err
		}
		if rec, err = w.Get(rec.Name); err != nil {
			return 127, err
		}
	}
	if rec.Resume != nil && rec.Resume.Outcome == state.ResumeFresh {
		fmt.Fprintf(out, "owt: %s starts fresh (%s), told its task and the work already in this worktree.\n", rec.Tool, rec.Resume.Why)
	}
	argTask, first := "", rec.FirstPrompt()
	// A task that starts with "-" would be read as an option by the tool's
	// argument parser, so it is pasted once the tool is ready instead.
	if prof.Prompt == "arg" && !strings.HasPrefix(first, "-") {
		argTask = first
	}
	argv, err := prof.Argv(argTask, rec.Plan, w.Config.Agent.AutoApprove)
	if rec.ReadOnly {
		argv, err = prof.ReadOnlyArgv(argTask) // a swarm's read-only role: the tool enforces it
	}
	if err != nil {
		return 127, err
	}
	argv, env := w.withOwt(rec, prof, argv, out)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 127, fmt.Errorf("start %s: %w", rec.Tool, err)
	}
	paste := argTask == "" && first != "" && prof.Prompt != "none"
	if argTask != "" || paste {
		w.markTaskPending(rec.Name)
	}
	if pane := os.Getenv("TMUX_PANE"); pane != "" {
		plan := watchPlan{Mode: watchStart, Working: argTask != "", Paste: paste, Prompt: first}
		err := w.execInPane(rec, pane, path, argv, env, plan)
		fmt.Fprintf(out, "owt: %v (owt waits for the agent itself)\n", err)
	}
	cmd, err := startForeground(path, argv[1:], rec.Path, env)
	if err != nil {
		return 127, fmt.Errorf("start %s: %w", rec.Tool, err)
	}
	defer takeForeground()
	go w.whenReady(rec, prof, argTask != "", paste, out)
	return waitAgent(cmd.Process)
}

// withOwt adds what connects the tool to owt: Codex's -c notify=[…]
// (see agent/codex.go), and owt mcp where the tool registers it on its
// command line or in its environment (env nil: the runner's own).
func (w *runner) withOwt(rec *state.Record, prof agent.Profile, argv []string, out io.Writer) ([]string, []string) {
	if extra, err := prof.HookArgs(w.Self, w.Repo.Root); err == nil {
		argv = prof.WithArgs(argv, extra)
	}
	argv, env := w.withMCP(rec, prof, argv, out)
	return argv, w.withAgentID(rec.Name, withToolEnv(env, prof.Env), out)
}

// withToolEnv adds the profile's variables (agent.Profile.Env) to env
// (nil: the runner's own), each only where env does not set it: the
// user's own choice stands.
func withToolEnv(env, vars []string) []string {
	if len(vars) == 0 {
		return env
	}
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		if _, set := proc.LookupEnv(env, name); !set {
			env = append(env, kv)
		}
	}
	return env
}

// withAgentID makes this start of the agent its id (state.Record.AgentID),
// recorded before the agent runs, and returns env (nil: the runner's own)
// with it: the hooks the agent runs carry it, a tool someone else starts
// in its folder does not. An id that cannot be recorded is said in the
// pane; the agent starts without one (every hook then counts as its own).
func (w *runner) withAgentID(name string, env []string, out io.Writer) []string {
	if env == nil {
		env = os.Environ()
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		fmt.Fprintf(out, "owt: no agent id: %v\n", err)
		return env
	}
	id := hex.EncodeToString(b[:])
	err := w.Store.Update(func(f *state.File) error {
		r, ok := f.Records[name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, name)
		}
		r.AgentID, r.AgentIDAt, r.OtherSessions = id, time.Now(), nil
		return nil
	})
	if err != nil {
		fmt.Fprintf(out, "owt: no agent id: %v\n", err)
		return env
	}
	return append(env, state.AgentIDEnv+"="+id)
}

// waitWhile watches the agent pid until ready closes (its resume is
// proven) or it ends, continuing it when it is stopped: ended says it
// ended, with its code.
func waitWhile(pid int, ready <-chan struct{}) (code int, ended bool, err error) {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED|syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return 1, true, fmt.Errorf("wait for the agent: %w", err)
		case got == pid:
			if code, ended := waitEnded(pid, ws); ended {
				return code, true, nil
			}
			continue
		}
		select {
		case <-ready:
			return 0, false, nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitAgent waits for the agent to end and returns its exit code (128+N
// for signal N), continuing it whenever it is stopped (waitEnded).
func waitAgent(p *os.Process) (int, error) {
	defer func() { _ = p.Release() }()
	for {
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(p.Pid, &ws, syscall.WUNTRACED, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return 1, fmt.Errorf("wait for the agent: %w", err)
		}
		if code, ended := waitEnded(p.Pid, ws); ended {
			return code, nil
		}
	}
}

// waitEnded reads one wait status of pid: the exit code once it ended;
// a stop continues it (there is no shell here to resume it with fg), its
// group too, and is not an end.
func waitEnded(pid int, ws syscall.WaitStatus) (int, bool) {
	switch {
	case ws.Stopped():
		_ = syscall.Kill(-pid, syscall.SIGCONT) // its group, when it leads one
		_ = syscall.Kill(pid, syscall.SIGCONT)
	case ws.Signaled():
		return 128 + int(ws.Signal()), true
	case ws.Exited():
		return ws.ExitStatus(), true
	}
	return 0, false
}

// markTaskPending notes that the agent starts with its task: until a turn
// is seen to start, it has not taken it. The composed first prompt leaves
// the record here (this runner holds it): every hook reads the records,
// and a prompt is kilobytes.
func (w *runner) markTaskPending(name string) {
	err := w.Store.Update(func(f *state.File) error {
		r, ok := f.Records[name]
		if !ok {
			return fmt.Errorf("%w %q", state.ErrUnknownName, name)
		}
		r.TaskPending = true
		r.Prompt = ""
		return nil
	})
	if err != nil {
		w.Logf("%s: %v", name, err)
	}
}

// whenReady waits until the tool's ready pattern shows in this pane, then
// pastes the task when the tool needs that, and only then moves the record
// out of "starting": owt send waits for that, since text typed before a TUI
// is ready is lost. working says the tool has its task (as an argument):
// then the record stays "starting" until the screen shows the turn running
// (Codex shows an empty prompt for seconds before it takes its task, and
// a first-run dialog is the monitor's to call waiting).
func (w *runner) whenReady(rec *state.Record, prof agent.Profile, working, paste bool, out io.Writer) {
	after := state.Idle
	if working {
		after = state.Working
	}
	pane := os.Getenv("TMUX_PANE")
	re, err := agent.CompilePattern(prof.Ready)
	if pane == "" || re == nil || err != nil {
		if paste {
			fmt.Fprintf(out, "owt: cannot tell when %s is ready; send the task with: owt send %s -\n", rec.Tool, rec.Name)
		}
		w.leaveStarting(rec.Name, after)
		return
	}
	readyTimeout := w.Config.Agent.ReadyTimeout.Duration
	cl := w.ClassifierOf(prof)
	if working && prof.Working != "" && cl != nil {
		w.leaveStartingOnTurn(rec.Name, rec.FirstPrompt(), pane, cl)
		return
	}
	if !w.waitScreen(pane, re, cl, readyTimeout) {
		if w.agentGone != nil && w.agentGone() {
			return // the runner after it says how it ended
		}
		if paste {
			fmt.Fprintf(out, "owt: %s did not show its prompt within %s; the task was not sent (owt send %s -)\n", rec.Tool, readyTimeout, rec.Name)
		}
		// Not "starting" forever: the agent runs, with its task or waiting
		// for the user.
		w.leaveStarting(rec.Name, after)
		return
	}
	if !paste {
		w.leaveStarting(rec.Name, after)
		return
	}
	if w.agentGone != nil && w.agentGone() {
		return // the pane is the runner's after the agent now, or the shell's
	}
	// The record is still "starting", so no owt send types meanwhile.
	d := send.DeliveryFor(w.Workspace, rec.Tool)
	if err := send.Deliver(w.Tmux, pane, untrusted.From(rec.FirstPrompt()), d); err != nil {
		fmt.Fprintf(out, "owt: sending the task to %s failed: %v (owt send %s -)\n", rec.Tool, err, rec.Name)
		w.leaveStarting(rec.Name, state.Idle)
		return
	}
	w.leaveStarting(rec.Name, state.Working)
}

// taskGrace is how long a tool may sit "starting" at its input prompt
// before owt says it never took its task (Codex takes up to ~9 s after
// its start or its sign-in screens; a task lost behind a screen never
// comes).
const taskGrace = 30 * time.Second

// echoHold is how long the screen must show the task taken at an idle
// prompt before owt calls a turn it never saw running over: a tool may
// draw the message a frame before its busy indicator, and a tool's own
// turn-end hook (which also tells "finished its turn") lands well within.
const echoHold = 3 * time.Second

// leaveStartingOnTurn makes a "starting" record working once the screen
// shows the turn running (turnStarted), idle once the screen shows the task
// taken and the turn over (a turn quicker than a look at the screen:
// turnEndedUnseen), and idle with the task not taken once the tool has sat
// "starting" at its prompt for taskGrace with no sign of its task. It goes
// on through first-run dialogs (the monitor calls them waiting, and the
// prompt after them starting again) and stops once a turn started (a
// hook, the monitor) or the agent exited.
func (w *runner) leaveStartingOnTurn(name, prompt, pane string, cl *agent.Classifier) {
	var idleSince, echoSince time.Time
	var before, marks agent.TurnMarks
	first := true
	for {
		r, err := w.Get(name)
		if err != nil || !r.TaskPending || r.Status == state.Exited {
			return
		}
		class, running, echoed := agent.ClassUnknown, false, false
		if screen, err := w.Tmux.Capture(pane); err == nil {
			class, _ = cl.Read(screen)
			running = class == agent.ClassWorking && !agent.Booting(screen)
			echoed = class == agent.ClassIdle && cl.TaskEchoed(screen, prompt)
			marks = agent.Marks(screen)
			if first {
				before, first = marks, false // what was on screen before the tool drew is history
			}
		}
		if running {
			w.turnStarted(name)
			return
		}
		switch {
		case r.Status != state.Starting || !echoed:
			echoSince = time.Time{}
		case echoSince.IsZero():
			echoSince = time.Now()
		case time.Since(echoSince) >= echoHold:
			w.turnEndedUnseen(name, before, marks)
			return
		}
		switch {
		case r.Status != state.Starting || class != agent.ClassIdle:
			idleSince = time.Time{}
		case idleSince.IsZero():
			idleSince = time.Now()
		case time.Since(idleSince) >= taskGrace:
			w.leaveStarting(name, state.Idle)
			return
		}
		pause := 250 * time.Millisecond
		if r.Status != state.Starting {
			// A first-run dialog is up: the monitor reads it; the runner
			// looks only for a quick turn right after it, less often.
			pause = time.Second
		}
		time.Sleep(pause)
	}
}

// turnEndedUnseen makes idle a "starting" agent whose screen shows that it
// took its task and its turn is over: it ended as the marks drawn since
// the tool started say (interrupted, failed, or finished).
func (w *runner) turnEndedUnseen(name string, before, after agent.TurnMarks) {
	interrupted, failure := agent.TurnEnd(before, after)
	_, changed, _ := w.ChangeStatus(name, func(r *state.Record) (state.StatusChange, bool) {
		return state.StatusChange{Status: state.Idle, Source: state.FromOwt, At: w.Now(), TurnRan: true,
			Interrupted: interrupted, TurnError: failure}, r.TaskPending && r.Status == state.Starting
	})
	if changed {
		status.PublishCurrent(&w.Ledger, name)
	}
}

// turnStarted makes working an agent whose turn on its task shows on
// screen, while it is still "starting" or its first-run dialog was just
// answered (a quick turn is over before the monitor's reading of a
// dialog has been replaced).
func (w *runner) turnStarted(name string) {
	_, changed, _ := w.ChangeStatus(name, func(r *state.Record) (state.StatusChange, bool) {
		return state.StatusChange{Status: state.Working, Source: state.FromOwt, At: w.Now()},
			r.TaskPending && (r.Status == state.Starting || r.Status == state.Waiting && r.Source == state.FromScreen)
	})
	if changed {
		status.PublishCurrent(&w.Ledger, name)
	}
}

// waitScreen polls the pane until re matches its screen, and no dialog is
// up (a trust dialog's "❯ No, exit" looks like a prompt), up to limit.
func (w *runner) waitScreen(pane string, re *regexp.Regexp, cl *agent.Classifier, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		screen, err := w.Tmux.Capture(pane)
		if err == nil && re.MatchString(screen) && (cl == nil || cl.Classify(screen) != agent.ClassWaiting) {
			return true
		}
		if time.Now().After(deadline) || w.agentGone != nil && w.agentGone() {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// leaveStarting sets the status of a record that is still "starting": a
// hook may have told more already, or the agent may have exited.
func (w *runner) leaveStarting(name string, st state.Status) {
	_, changed, _ := w.ChangeStatus(name, func(r *state.Record) (state.StatusChange, bool) {
		return state.StatusChange{Status: st, Source: state.FromOwt, At: w.Now()}, r.Status == state.Starting
	})
	if changed {
		status.PublishCurrent(&w.Ledger, name)
	}
}

// execShell replaces the runner with the user's shell in dir.
func execShell(out io.Writer, dir string) error {
	signal.Reset()
	if dir != "" {
		_ = os.Chdir(dir)
	}
	shell := os.Getenv("SHELL")
	if shell == "" {
		shell = "/bin/sh"
	}
	err := syscall.Exec(shell, []string{shell}, os.Environ())
	fmt.Fprintf(out, "owt: start %s: %v\n", shell, err)
	return err
}

// startForeground starts the agent as the pane's foreground job, in its own
// process group, the way a shell starts a command: tmux then names the pane
// (pane_current_command, automatic-rename) after the agent rather than
// "owt", and Ctrl-C reaches the agent alone. Where the pane is not a
// terminal it starts the agent as a plain child.
func startForeground(path string, args []string, dir string, env []string) (*exec.Cmd, error) {
	mk := func() *exec.Cmd {
		cmd := exec.Command(path, args...)
		cmd.Dir = dir
		cmd.Env = env // nil: the runner's environment
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		return cmd
	}
	cmd := mk()
	if term.IsTerminal(int(os.Stdin.Fd())) {
		// Ctty is the child's fd 0, its copy of the pane's terminal.
		cmd.SysProcAttr = &syscall.SysProcAttr{Foreground: true, Ctty: 0}
		if err := cmd.Start(); err == nil {
			return cmd, nil
		}
		cmd = mk()
	}
	return cmd, cmd.Start()
}

// takeForeground makes the runner's process group the terminal's
// foreground again once the agent is gone, so the shell that replaces the
// runner can read the terminal. SIGTTOU, sent to a background group that
// does this, is ignored for the call.
func takeForeground() {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return
	}
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	_ = unix.IoctlSetPointerInt(int(os.Stdin.Fd()), unix.TIOCSPGRP, syscall.Getpgrp())
}
