// Package proc is the one door through which owt starts the programs it
// drives (git, tmux, gh): every start goes through a context, so a caller
// can bound it with a deadline, and with OWT_TRACE set every command is
// printed to stderr with its duration and outcome — the first thing a user
// debugging owt needs. It knows nothing of any one program. Every Run goes
// through one Runner, which a test can replace with a fake
// (internal/proc/proctest) that starts nothing and records every command.
package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// TraceEnv names the environment variable that turns tracing on ("1",
// "true"); owt --trace turns it on for its own process.
const TraceEnv = "OWT_TRACE"

// waitDelay is how long a program whose context ended has, after SIGTERM,
// before SIGKILL, and how long Wait then waits for output pipes a
// grandchild may hold: git removes its lock files on SIGTERM, and a
// hook's background job must not outlive the deadline.
const waitDelay = time.Second

// Command is exec.CommandContext as owt wants it. A nil ctx means
// context.Background(): the program runs to its end, as long as it takes
// (the user's ^C is the bound). With a ctx that can end, its end sends
// SIGTERM, then SIGKILL after waitDelay.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	if ctx == nil {
		ctx = context.Background()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	if ctx.Done() != nil {
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
		cmd.WaitDelay = waitDelay
	}
	return cmd
}

// A Runner runs one program (made by Command) to its end. Exec is owt's;
// a test of the code above proc puts a fake in its place (Use), so what
// git and tmux would do is answered without starting them, and what owt
// asked of them is recorded.
type Runner interface {
	Run(ctx context.Context, cmd *exec.Cmd) error
}

// Exec is the Runner that starts programs.
type Exec struct{}

var (
	runnerMu sync.RWMutex
	runner   Runner = Exec{}
)

// Use makes r the Runner every Run goes through, until restore is called
// (which puts back the one before). Only tests call it.
func Use(r Runner) (restore func()) {
	runnerMu.Lock()
	defer runnerMu.Unlock()
	before := runner
	runner = r
	return func() {
		runnerMu.Lock()
		defer runnerMu.Unlock()
		runner = before
	}
}

// Run runs cmd (made by Command) through the Runner in use: Exec, unless
// a test put a fake in its place.
func Run(ctx context.Context, cmd *exec.Cmd) error {
	runnerMu.RLock()
	r := runner
	runnerMu.RUnlock()
	return r.Run(ctx, cmd)
}

// Run runs cmd and traces it when tracing is on. When cmd's context ended
// first, the error says so (context.DeadlineExceeded or
// context.Canceled, for errors.Is), not just "signal: terminated". A
// program that succeeded while something it started (a git hook's
// background job) still holds its output succeeded: its own output is
// all there.
func (Exec) Run(ctx context.Context, cmd *exec.Cmd) error {
	start := time.Now()
	err := cmd.Run()
	switch {
	case err != nil && ctx != nil && ctx.Err() != nil:
		err = fmt.Errorf("%s: %w (%v)", commandName(cmd), ctx.Err(), err)
	case errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success():
		err = nil
	}
	if out := tracer(); out != nil {
		trace(out, cmd, time.Since(start), err)
	}
	return err
}

// ExitCode is the exit status of a program that ran and failed (err
// wraps an *exec.ExitError, or a fake Runner's error with an ExitCode
// method), and whether it did: -1, false when it did not run or err is
// nil. A program ended by a signal ran: -1, true.
func ExitCode(err error) (int, bool) {
	var ec interface{ ExitCode() int }
	if errors.As(err, &ec) {
		return ec.ExitCode(), true
	}
	return -1, false
}

var (
	traceOnce sync.Once
	traceMu   sync.Mutex
	// traceOut is where trace lines go (stderr, the user's terminal or
	// the monitor's log); nil when tracing is off.
	traceOut io.Writer
)

// TraceTo turns tracing on for this process, to w (owt --trace); nil
// turns it off.
func TraceTo(w io.Writer) {
	traceOnce.Do(readTraceEnv) // the environment is read first, so it cannot undo this
	traceMu.Lock()
	defer traceMu.Unlock()
	traceOut = w
}

// tracer is where trace lines go now, nil when tracing is off.
func tracer() io.Writer {
	traceOnce.Do(readTraceEnv)
	traceMu.Lock()
	defer traceMu.Unlock()
	return traceOut
}

func readTraceEnv() {
	v := strings.ToLower(strings.TrimSpace(os.Getenv(TraceEnv)))
	if v != "" && v != "0" && v != "false" && v != "no" {
		traceMu.Lock()
		traceOut = os.Stderr
		traceMu.Unlock()
	}
}

// trace prints one line per command: its duration, its argv quoted (so a
// control character in an argument cannot drive the terminal), and how it
// ended.
func trace(w io.Writer, cmd *exec.Cmd, took time.Duration, err error) {
	var b strings.Builder
	fmt.Fprintf(&b, "owt trace: %7.1fms %s", float64(took.Microseconds())/1000, commandName(cmd))
	for _, a := range cmd.Args[1:] {
		b.WriteByte(' ')
		b.WriteString(quoteArg(a))
	}
	switch {
	case err != nil:
		b.WriteString(" → " + strconv.Quote(err.Error()))
	default:
		b.WriteString(" → ok")
	}
	b.WriteByte('\n')
	traceMu.Lock()
	defer traceMu.Unlock()
	_, _ = io.WriteString(w, b.String())
}

func commandName(cmd *exec.Cmd) string {
	if len(cmd.Args) > 0 {
		return cmd.Args[0]
	}
	return cmd.Path
}

// quoteArg leaves a plain argument as it is and quotes one with spaces,
// quotes or anything not printable.
func quoteArg(a string) string {
	if a == "" {
		return `""`
	}
	for _, r := range a {
		if r <= ' ' || r == '"' || r == '\'' || r == '\\' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return strconv.Quote(a)
		}
	}
	return a
}
