package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/state"
)

// MaxHeadlessAnswer bounds what RunHeadless keeps of a tool's answer.
const MaxHeadlessAnswer = 4 << 20

// MaxArgPrompt is the longest prompt passed as an argument (Linux's
// MAX_ARG_STRLEN is 128 KiB, less room for the rest).
const MaxArgPrompt = 100 << 10

// stdinPrompt is the argument a tool gets when its prompt comes on stdin.
const stdinPrompt = "The request is the text on standard input: do what it asks."

// RunHeadless runs a one-shot of the tool (HeadlessArgv) on prompt in dir
// and returns what it printed on stdout. The prompt is one argv element,
// never through a shell. stdin is empty, so a tool that also reads its
// prompt from stdin (codex exec, gemini -p) adds nothing to it; the
// tool's stderr (its progress and errors) goes to stderr.
func (p Profile) RunHeadless(dir, prompt string, stderr io.Writer) (string, error) {
	return p.RunHeadlessContext(context.Background(), dir, nil, prompt, stderr)
}

// RunHeadlessContext is RunHeadless with env as the tool's environment
// (nil: owt's own), never with an agent's id (state.AgentIDEnv: a run
// made from an agent's shell is not that agent, whose hooks it may run),
// bounded by ctx: when
// ctx ends first the tool is ended (proc.Command: SIGTERM, then SIGKILL)
// and the error wraps ctx's error (errors.Is context.DeadlineExceeded).
//
// A prompt over MaxArgPrompt does not fit in one argv element (Linux caps
// one at 128 KiB: exec fails with "argument list too long"): a tool that
// adds its stdin to the prompt (HeadlessStdin) gets it there, with a short
// argument saying so; another is refused with one line.
func (p Profile) RunHeadlessContext(ctx context.Context, dir string, env []string, prompt string, stderr io.Writer) (string, error) {
	arg, stdin := prompt, ""
	if len(prompt) > MaxArgPrompt {
		if !p.HeadlessStdin {
			return "", fmt.Errorf("the prompt is %d KiB, more than one argument to %s can hold (%d KiB), and it reads none on stdin",
				len(prompt)>>10, p.Name, MaxArgPrompt>>10)
		}
		arg, stdin = stdinPrompt, prompt
	}
	argv, err := p.HeadlessArgv(arg)
	if err != nil {
		return "", err
	}
	cmd := proc.Command(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = headlessEnv(env)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stderr = stderr
	out := &capped{max: MaxHeadlessAnswer}
	cmd.Stdout = out
	err = proc.Run(ctx, cmd)
	what := strings.Join(p.Headless, " ")
	var exit *exec.ExitError
	switch {
	case err != nil && ctx.Err() != nil:
		return out.String(), fmt.Errorf("%s: %w", what, ctx.Err())
	case errors.As(err, &exit):
		return out.String(), fmt.Errorf("%s exited with code %d", what, exit.ExitCode())
	case err != nil:
		return out.String(), fmt.Errorf("run %s: %w", what, err)
	case out.over:
		return out.String(), fmt.Errorf("%s answered more than %d bytes", what, MaxHeadlessAnswer)
	}
	return out.String(), nil
}

// capped keeps the first max bytes written to it and notes the rest.
type capped struct {
	bytes.Buffer
	max  int
	over bool
}

func (c *capped) Write(b []byte) (int, error) {
	if room := c.max - c.Len(); len(b) > room {
		c.over = true
		c.Buffer.Write(b[:max(room, 0)])
		return len(b), nil
	}
	return c.Buffer.Write(b)
}

// headlessEnv is a headless run's environment: env (nil: this process's)
// less state.AgentIDEnv, since the run is not the agent.
func headlessEnv(env []string) []string {
	return proc.WithoutEnv(env, state.AgentIDEnv)
}
