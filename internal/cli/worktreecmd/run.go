package worktreecmd

import (
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/pane"
)

// RunnerCommand is the first process of every worktree session; with
// --died, what tmux starts in the pane once its agent exited; with
// --watch, the watcher of an agent's start; with --exited CODE, where an
// older owt's owt-wait hands back the agent's exit.
func RunnerCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:   "_run",
		Hidden: true,
		Usage:  "run a worktree session's setup and agent (started by owt new)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "died", Usage: "the pane's agent exited, its last screen in the file given as the argument (tmux runs this in the pane)"},
			&cli.BoolFlag{Name: "watch", Usage: "start the watcher of the agent's start (owt _run runs this)"},
			&cli.BoolFlag{Name: "watching", Usage: "watch the agent's start, as planned on stdin"},
			&cli.BoolFlag{Name: "exited", Usage: "the agent exited with the code given as the argument (an older owt's owt-wait runs this)"},
		},
		Action: func(c *cli.Context) error {
			switch {
			case c.Bool("died"):
				return pane.Died(f.Tmux(), c.Args().First(), f.IO.Out)
			case c.Bool("watch"):
				return pane.Watch()
			case c.Bool("watching"):
				return pane.Watching(f.Tmux(), f.IO.In, f.IO.Out)
			case c.Bool("exited"):
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
