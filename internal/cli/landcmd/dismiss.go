package landcmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/react"
)

// DismissCommand is owt dismiss: the user takes over an escalated reaction.
func DismissCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name: "dismiss",
		Usage: "stop an escalated reaction needing you (seen, you handle it): its attempts start again, " +
			"the same cause is not sent again",
		ArgsUsage: "NAME [REACTION...]",
		Flags:     []cli.Flag{cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return cmdutil.Usagef("dismiss takes a NAME (see 'owt list') and optionally reactions (%s)", strings.Join(config.ReactionNames, ", "))
			}
			name, reactions := c.Args().First(), c.Args().Tail()
			loops := len(reactions) == 0 || slices.Contains(reactions, messageLoop)
			reactions = slices.DeleteFunc(reactions, func(r string) bool { return r == messageLoop })
			for _, r := range reactions {
				if !slices.Contains(config.ReactionNames, r) {
					return cmdutil.Usagef("dismiss: unknown reaction %q (one of %s, %s)", r, strings.Join(config.ReactionNames, ", "), messageLoop)
				}
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			var d react.Dismissal
			if len(reactions) > 0 || len(c.Args().Tail()) == 0 {
				if d, err = react.Dismiss(w, name, reactions); err != nil {
					return err
				}
			} else if _, err := w.Get(name); err != nil {
				return err
			}
			if loops {
				n, err := outbox.Default().DismissLoops(w.Repo.Root, name)
				if err != nil {
					return err
				}
				if n > 0 {
					d.Dismissed = append(d.Dismissed, react.Dismissed{Reaction: messageLoop, Was: fmt.Sprintf("%d message loop(s) refused by owt mcp's loop guard", n)})
				} else if len(c.Args().Tail()) > 0 {
					d.NotNeeded = append(d.NotNeeded, messageLoop)
				}
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

// messageLoop names, for owt dismiss, the message loops of owt mcp's loop
// guard an agent is in as the sender.
const messageLoop = "message_loop"
