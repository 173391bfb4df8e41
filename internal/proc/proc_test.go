package proc

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestRunEndsAProgramAtItsDeadlineAndSaysSo(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	cmd := Command(ctx, "sleep", "30")
	err := Run(ctx, cmd)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want a deadline error, got %v", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.Success() {
		t.Fatalf("sleep was not ended: %v", cmd.ProcessState)
	}
}

func TestRunWithoutDeadlineKeepsTheProgramsOwnError(t *testing.T) {
	err := Run(nil, Command(nil, "false"))
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("want exit status 1, got %v", err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Fatalf("no context ended, yet the error says one did: %v", err)
	}
}

func TestTraceLineQuotesHostileArgumentsAndSaysHowItEnded(t *testing.T) {
	var out bytes.Buffer
	cmd := exec.Command("git", "-C", "/r", "commit", "-m", "fix \x1b]0;pwned\x07 it")
	trace(&out, cmd, 1500*time.Microsecond, errors.New("exit status 1"))
	line := out.String()
	if strings.ContainsAny(line, "\x1b\x07") {
		t.Fatalf("a control character reached the terminal: %q", line)
	}
	for _, want := range []string{"owt trace:", "1.5ms", "git -C /r commit -m", `"fix \x1b]0;pwned\a it"`, `→ "exit status 1"`} {
		if !strings.Contains(line, want) {
			t.Fatalf("trace line %q lacks %q", line, want)
		}
	}
	if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
		t.Fatalf("want one line, got %q", line)
	}
}

// A program that succeeded while a job it started (a git hook's
// background job) still holds its output succeeded, with a deadline or
// without one; its own output is all there.
func TestASucceededProgramWithALingeringChildSucceeded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range []context.Context{ctx, nil} {
		var out strings.Builder
		cmd := Command(c, "sh", "-c", "(sleep 2) & echo done")
		cmd.Stdout = &out
		if err := Run(c, cmd); err != nil {
			t.Fatalf("want success, got %v", err)
		}
		if out.String() != "done\n" {
			t.Fatalf("want its output, got %q", out.String())
		}
	}
}

// A deadline ends a program with SIGTERM first (git removes its lock
// files then).
func TestADeadlineEndsAProgramWithSIGTERMFirst(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	dir := t.TempDir()
	cmd := Command(ctx, "sh", "-c", "trap 'touch "+dir+"/termed; exit 143' TERM; while :; do sleep 0.05; done")
	err := Run(ctx, cmd)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want the deadline named, got %v", err)
	}
	if _, serr := os.Stat(dir + "/termed"); serr != nil {
		t.Fatalf("the program got no SIGTERM before it was killed: %v", serr)
	}
}
