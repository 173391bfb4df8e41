package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// RunContext is Run bounded by ctx: when ctx ends first, the tmux client
// is killed and the error says why. A stopped or wedged server then costs
// the caller the deadline, not forever.
func (c *Client) RunContext(ctx context.Context, args ...string) (string, error) {
	base := c.command(nil, args...)
	cmd := exec.CommandContext(ctx, base.Path, base.Args[1:]...)
	cmd.Stdin, cmd.Env = base.Stdin, base.Env
	cmd.WaitDelay = 100 * time.Millisecond
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", ErrNotInstalled
		}
		if ctx.Err() != nil {
			return "", fmt.Errorf("tmux %s: %w", args[0], ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		var ee *exec.ExitError
		if errors.As(err, &ee) && isNoServer(msg) {
			return "", ErrNoServer
		}
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("tmux %s: %s", args[0], msg)
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}

// SetOptionContext is SetOption bounded by ctx.
func (c *Client) SetOptionContext(ctx context.Context, target, name, value string) error {
	args := []string{"set-option", "-q"}
	if target == "" {
		args = append(args, "-g")
	} else {
		args = append(args, "-t", target)
	}
	_, err := c.RunContext(ctx, append(args, name, value)...)
	return err
}
