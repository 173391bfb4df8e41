package worktreecmd

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/peers"
	"github.com/owt-tmux/owt/internal/workspace"
)

// MessagesCommand is owt messages: the traffic between this repository's
// agents (send_message), oldest first.
func MessagesCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "messages",
		Usage:     "messages the agents sent each other (owt mcp), oldest first; NAME: only from or to it",
		ArgsUsage: "[NAME]",
		Flags:     []cli.Flag{cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return cmdutil.Usagef("messages takes at most one NAME")
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			name := c.Args().First()
			if name != "" {
				if _, err := w.Get(name); err != nil {
					return err
				}
			}
			recs, err := w.Records()
			if err != nil {
				return err
			}
			log, err := peers.Log(outbox.Default(), recs, name)
			if err != nil {
				return err
			}
			if log == nil {
				log = []peers.Entry{}
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, log)
			}
			if len(log) == 0 {
				fmt.Fprintln(c.App.Writer, "no messages between agents")
				return nil
			}
			tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "AGE\tFROM\tTO\tSTATE\tTEXT")
			now := w.Now()
			for _, e := range log {
				state := e.State
				if e.State == string(outbox.Delivered) && e.ReadAt.IsZero() {
					state = "delivered, unread"
				}
				to := e.To
				if e.Former {
					to += " (deleted)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", workspace.Age(now.Sub(e.QueuedAt)), e.From, to, state, e.Text.Short(60))
			}
			return tw.Flush()
		},
	}
}
