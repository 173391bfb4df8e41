// A task's check commands (its tests, its build), run in its worktree,
// with a bounded, cleaned tail of what a failing one said: the one way
// the run engine and the reactions run checks.

package land

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// checkTail is how many of a failing check's last output lines are kept.
const checkTail = 40

// CheckResult is how a list of checks went: passed, or what the first that
// failed said (its argv, exit and last lines).
type CheckResult struct {
	Passed bool
	Output string
}

// RunChecks runs each check's argv in dir (never through a shell), in
// order, each within limit, and stops at the first that fails: its
// command, exit and last output lines are the result's Output.
func RunChecks(dir string, checks [][]string, limit time.Duration) CheckResult {
	for _, argv := range checks {
		if len(argv) == 0 {
			continue
		}
		out, err := runCheck(dir, argv, limit)
		if err == nil {
			continue
		}
		text := fmt.Sprintf("$ %s\n%s", showArgv(argv), err)
		if tail := Tail(out, checkTail); tail != "" {
			text += "\n" + tail
		}
		return CheckResult{Passed: false, Output: text}
	}
	return CheckResult{Passed: true}
}

// runCheck runs argv in dir with no input, in its own process group so a
// timeout ends whatever it started; the error says how it ended.
func runCheck(dir string, argv []string, limit time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	out := &lastBytes{max: checkOutputKept}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.Bytes(), nil
	case ctx.Err() != nil:
		return out.Bytes(), fmt.Errorf("timed out after %s", limit)
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return out.Bytes(), fmt.Errorf("exit code %d", ee.ExitCode())
	}
	return out.Bytes(), fmt.Errorf("could not run: %v", err)
}

// Tail is the last n lines of out, control characters removed (a check's
// colours and cursor moves would reach the agent as keys).
func Tail(out []byte, n int) string {
	text := strings.TrimRight(untrusted.Clean(agent.StripEscapes(string(out))), "\n ")
	lines := strings.Split(text, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	// Bounded in bytes too: one line of megabytes must not become a
	// prompt of megabytes.
	for i, l := range lines {
		if len(l) > tailLineMax {
			lines[i] = "…" + strings.ToValidUTF8(l[len(l)-tailLineMax:], "")
		}
	}
	tail := strings.Join(lines, "\n")
	if len(tail) > tailMax {
		tail = "…" + strings.ToValidUTF8(tail[len(tail)-tailMax:], "")
	}
	return tail
}

// The bounds of what owt keeps and sends of a command's output.
const (
	checkOutputKept = 256 << 10 // the last bytes of a check's output kept in memory
	tailLineMax     = 500       // bytes of one line sent
	tailMax         = 8 << 10   // bytes of a whole tail sent
)

// lastBytes keeps the last max bytes written to it.
type lastBytes struct {
	buf []byte
	max int
}

func (l *lastBytes) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if over := len(l.buf) - l.max; over > 0 {
		l.buf = append(l.buf[:0], l.buf[over:]...)
	}
	return len(p), nil
}

func (l *lastBytes) Bytes() []byte { return l.buf }

// showArgv shows argv as one command line, words with spaces quoted.
func showArgv(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$") {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		words[i] = w
	}
	return strings.Join(words, " ")
}
