package landcmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/react"
)

// DismissCommand is owt dismiss: the user takes over an escalated reaction.
func DismissCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name: "dismiss",
		Usage: "stop an escalated reaction needing you (seen, you handle it): its attempts start again, " +
			"the same cause is not sent again",
		ArgsUsage:    "NAME [REACTION...]",
		BashComplete: func(c *cli.Context) { completeDismiss(f, c) },
		Flags:        []cli.Flag{cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return cmdutil.Usagef("dismiss takes a NAME (see 'owt list') and optionally reactions (%s)", strings.Join(config.ReactionNames, ", "))
			}
			name, reactions := c.Args().First(), c.Args().Tail()
			for _, r := range reactions {
				if !slices.Contains(config.ReactionNames, r) {
					return cmdutil.Usagef("dismiss: unknown reaction %q (one of %s)", r, strings.Join(config.ReactionNames, ", "))
				}
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			d, err := react.Dismiss(w, name, reactions)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, d)
			}
			for _, x := range d.Dismissed {
				fmt.Fprintf(c.App.Writer, "dismissed %s for %s (was: %s)\n", x.Reaction, name, x.Was)
			}
			for _, r := range d.NotNeeded {
				fmt.Fprintf(c.App.Writer, "%s of %s does not need you\n", r, name)
			}
			return nil
		},
	}
}

// completeDismiss offers the worktree names, then the reaction names.
func completeDismiss(f *cmdutil.Factory, c *cli.Context) {
	if c.NArg() == 0 {
		f.CompleteNames(c)
		return
	}
	for _, r := range config.ReactionNames {
		fmt.Fprintln(c.App.Writer, r)
	}
}
