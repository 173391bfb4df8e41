package proc

import (
	"bytes"
	"context"
	"errors"
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
