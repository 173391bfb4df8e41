package worktreecmd

import (
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/runner"
)

// RunnerCommand is the first process of every worktree session.
func RunnerCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:   "_run",
		Hidden: true,
		Usage:  "run a worktree session's setup and agent (started by owt new)",
		Action: func(*cli.Context) error {
			return runner.RunSession(f.Tmux(), f.IO.Out)
		},
	}
}
