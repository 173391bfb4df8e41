package cli

import (
	"strings"
	"testing"

	"github.com/owt-tmux/owt/internal/proc"
)

// owt --trace prints each git command it runs on stderr, with its
// duration and how it ended; without it, nothing of the kind.
func TestTracePrintsEveryCommandOwtRuns(t *testing.T) {
	t.Cleanup(func() { proc.TraceTo(nil) })
	t.Setenv(proc.TraceEnv, "")
	t.Chdir(t.TempDir()) // config validate only reads: git finds no repository here
	_, quiet, _ := runOwt(t, "", nil, "config", "validate")
	if strings.Contains(quiet, "owt trace:") {
		t.Fatalf("traced without --trace: %q", quiet)
	}
	_, errOut, _ := runOwt(t, "", nil, "--trace", "config", "validate")
	if !strings.Contains(errOut, "owt trace:") || !strings.Contains(errOut, "git -C ") || !strings.Contains(errOut, "exit status 128") || !strings.Contains(errOut, "ms ") {
		t.Fatalf("want a trace line per git command with its duration, got %q", errOut)
	}
}
