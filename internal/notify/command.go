package notify

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/config"
)

// commandChannel runs the user's [notify] command (argv, no shell) with
// the notice in its environment.
type commandChannel struct{ argv []string }

func commandRoute(cfg config.Notify, _ Deps) (Route, bool) {
	if len(cfg.Command) == 0 {
		return Route{}, false
	}
	// The command is the user's: it runs as long as it likes (reaped in
	// the background), as it always did; one attempt.
	return Route{Channel: commandChannel{argv: cfg.Command}, On: cfg.On}, true
}

func (commandChannel) Name() string { return "command" }

// commandWait is how long Send waits for the command to end, to say how
// it ended; one that runs longer runs on, reaped in the background.
var commandWait = 2 * time.Second

// Send starts the command and waits a moment for it: one that fails at
// once says why; a slow one runs on and never holds a delivery slot.
func (c commandChannel) Send(ctx context.Context, n Notice) error {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = n.Path
	cmd.Env = append(os.Environ(), "OWT_NAME="+n.Agent, "OWT_STATUS="+n.Status, "OWT_EVENT="+n.Event,
		"OWT_TEXT="+n.Text, "OWT_RUN="+n.Run, "OWT_TASK="+n.Task,
		"OWT_REPO="+n.Repo, "OWT_PATH="+n.Path, "OWT_EXIT_CODE="+n.ExitCode)
	var stderr tail
	cmd.Stderr = &stderr
	if devnull, err := os.Open(os.DevNull); err == nil {
		cmd.Stdin = devnull
		defer devnull.Close()
	}
	if err := cmd.Start(); err != nil {
		return Permanent(fmt.Errorf("run %s: %w", c.argv[0], err))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return Permanent(fmt.Errorf("%s: %w: %s", c.argv[0], err, plainLine(stderr.String(), 200)))
		}
	case <-time.After(commandWait):
	case <-ctx.Done():
	}
	return nil
}

// tail keeps the last bytes written to it.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 1024 {
		t.b = t.b[len(t.b)-1024:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
