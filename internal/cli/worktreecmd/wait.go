package worktreecmd

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/ssh"
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
			&cli.StringFlag{Name: "until", Value: "idle", Usage: "the `STATUS` to wait for: idle, waiting (needs you), exited, or any of them"},
			&cli.DurationFlag{Name: "timeout", Value: 0, DefaultText: "wait forever", Usage: "give up after `DURATION`, e.g. 10m"},
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
			timeout := c.Duration("timeout")
			if c.NArg() == 1 {
				limit := time.Duration(0)
				if timeout > 0 {
					limit = timeout + time.Minute
				}
				// The host's owt waits there; its words on stderr are
				// held until it is known that it ran (ssh's own, of a
				// host it could not reach, are not shown).
				start := time.Now()
				var errOut bytes.Buffer
				held := *f
				streams := *f.IO
				streams.ErrOut, held.IO = &errOut, &streams
				ran, err := onHost(&held, c, c.Args().First(), limit)
				if ran && !errors.Is(err, ssh.ErrUnreachable) {
					_, _ = f.IO.ErrOut.Write(errOut.Bytes())
					return err
				}
				if ran && timeout > 0 {
					// The host went away: waited on by looking, as --all
					// does, for what is left of --timeout.
					timeout = max(timeout-time.Since(start), time.Millisecond)
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
			results, err := status.WaitWith(&w.Ledger, local, until, timeout, there)
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
