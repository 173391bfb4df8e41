package landcmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/forge"
	"github.com/owt-tmux/owt/internal/land"
)

// PRCommand is owt pr: push an agent's branch and open its pull request.
func PRCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "pr",
		Usage:     "push an agent's branch and open a pull request for it (gh), or adopt the one open for it; owt then follows its CI and reviews",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "draft", Usage: "open it as a draft"},
			&cli.StringFlag{Name: "base", Usage: "the `BRANCH` to merge into (default: the worktree's base)"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("pr takes one NAME (see 'owt list')")
			}
			// Pushed from where the branch is: an agent's on a host, there.
			if ran, err := onHost(f, c, 2*time.Minute); ran {
				return err
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			pr, err := land.OpenPR(w, c.Args().First(), land.PROptions{Draft: c.Bool("draft"), Base: c.String("base")}, forge.Client{})
			if errors.Is(err, land.ErrUnknownBase) {
				return cmdutil.UsageError{Msg: err.Error()} // a --base that is no branch is bad usage
			}
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, pr)
			}
			verb := "opened"
			if pr.Adopted {
				verb = "adopted"
			}
			// The URL is gh's text: shown inert on the terminal.
			fmt.Fprintf(c.App.Writer, "%s pull request #%d for %s: %s\n", verb, pr.Number, c.Args().First(), cmdutil.Shown(pr.URL))
			return nil
		},
	}
}
