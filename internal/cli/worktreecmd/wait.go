package worktreecmd

import (
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/urfave/cli/v2"
)

func WaitCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "wait",
		Usage:     "wait until agents are idle (or waiting, exited, any of these); exit 0 when all got there, 1 on timeout",
		ArgsUsage: "NAME|NAME@HOST...",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "wait on every agent of this repository, here and on the hosts serving it"},
			&cli.StringFlag{Name: "until", Value: "idle", Usage: "idle, waiting (needs you), exited, or any of them"},
			&cli.DurationFlag{Name: "timeout", Value: 0, Usage: "give up after this long, e.g. 10m (default: wait forever)"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 && !c.Bool("all") {
				return cmdutil.Usagef("wait needs at least one NAME (or --all)")
			}
			if c.NArg() > 0 && c.Bool("all") {
				return cmdutil.Usagef("wait takes NAMEs or --all, not both")
			}
			until, err := status.ParseUntil(c.String("until"))
			if err != nil {
				return cmdutil.UsageError{Msg: err.Error()}
			}
			if c.Duration("timeout") < 0 {
				return cmdutil.Usagef("--timeout must not be negative")
			}
			if c.NArg() == 1 {
				limit := time.Duration(0)
				if d := c.Duration("timeout"); d > 0 {
					limit = d + time.Minute
				}
				if ran, err := onHost(f, c, c.Args().First(), limit); ran {
					return err
				}
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			local, remote, err := waitTargets(f, w, c.Args().Slice(), c.Bool("all"), f.IO.ErrOut)
			if err != nil {
				return err
			}
			if c.Bool("all") && len(local) == 0 && remote.empty() {
				return cmdutil.CodeError{Code: cmdutil.ExitError, Msg: "no agents to wait on in this repository, here or on its hosts"}
			}
			var there *status.Elsewhere
			if !remote.empty() {
				there = &status.Elsewhere{Look: remote.look, Every: waitLookEvery}
			}
			results, err := status.WaitWith(&w.Ledger, local, until, c.Duration("timeout"), there)
			if err != nil {
				return err
			}
			var missed []string
			for _, r := range results {
				if !r.Reached {
					missed = append(missed, missedLine(r))
				}
			}
			if c.Bool("json") {
				if err := cmdutil.PrintJSON(c.App.Writer, results); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					if r.Reached {
						fmt.Fprintf(c.App.Writer, "%s: %s\n", r.Name, r.Status)
					}
				}
			}
			if len(missed) == 0 {
				return nil
			}
			msg := fmt.Sprintf("not %s: %s", until, strings.Join(missed, ", "))
			if c.Bool("json") {
				fmt.Fprintln(f.IO.ErrOut, "owt: "+msg)
				return cmdutil.ExitWith(cmdutil.ExitError)
			}
			return cmdutil.CodeError{Code: cmdutil.ExitError, Msg: msg}
		},
	}
}
