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
		ArgsUsage: "NAME...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "until", Value: "idle", Usage: "idle, waiting (needs you), exited, or any of them"},
			&cli.DurationFlag{Name: "timeout", Value: 0, Usage: "give up after this long, e.g. 10m (default: wait forever)"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cmdutil.Usagef("wait needs at least one NAME")
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
			results, err := status.Wait(&w.Ledger, c.Args().Slice(), until, c.Duration("timeout"))
			if err != nil {
				return err
			}
			var missed []string
			for _, r := range results {
				if !r.Reached {
					missed = append(missed, fmt.Sprintf("%s is %s", r.Name, r.Status))
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
