package notify

import (
	"context"
	"fmt"
	"os"
	"os/exec"

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

// Send starts the command and returns once it started: a slow command
// never holds a delivery slot.
func (c commandChannel) Send(_ context.Context, n Notice) error {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Dir = n.Path
	cmd.Env = append(os.Environ(), "OWT_NAME="+n.Agent, "OWT_STATUS="+n.Status, "OWT_EVENT="+n.Event,
		"OWT_TEXT="+n.Text, "OWT_RUN="+n.Run, "OWT_TASK="+n.Task,
		"OWT_REPO="+n.Repo, "OWT_PATH="+n.Path, "OWT_EXIT_CODE="+n.ExitCode)
	if err := startReaped(cmd); err != nil {
		return Permanent(fmt.Errorf("run %s: %w", c.argv[0], err))
	}
	return nil
}

// startReaped starts cmd with no input and reaps it in the background.
func startReaped(cmd *exec.Cmd) error {
	if devnull, err := os.Open(os.DevNull); err == nil {
		cmd.Stdin = devnull
		defer devnull.Close()
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
