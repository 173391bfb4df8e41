package worktreecmd

import (
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/pane"
)

// RunnerCommand is the first process of every worktree session, and,
// with --exited CODE, where owt-wait hands back the agent's exit.
func RunnerCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:   "_run",
		Hidden: true,
		Usage:  "run a worktree session's setup and agent (started by owt new)",
		Flags:  []cli.Flag{&cli.BoolFlag{Name: "exited", Usage: "the agent exited with the code given as the argument (owt-wait runs this)"}},
		Action: func(c *cli.Context) error {
			if c.Bool("exited") {
				code, err := strconv.Atoi(c.Args().First())
				if err != nil || c.NArg() != 1 {
					return cmdutil.Usagef("_run --exited takes the agent's exit code")
				}
				return pane.Exited(f.Tmux(), code, f.IO.Out)
			}
			return pane.RunSession(f.Tmux(), f.IO.Out)
		},
	}
}
