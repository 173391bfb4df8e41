package landcmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
)

// CommitCommand is owt commit NAME: everything in the worktree committed
// as owt ship would commit it, nothing landed. It is the host's half of
// owt ship NAME@HOST (run there through owt host exec), so it is hidden.
func CommitCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "commit",
		Hidden:    true,
		Usage:     "commit everything in a worktree as ship would, landing nothing (the host's half of owt ship NAME@HOST)",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "commit `MESSAGE` (default: the task)"},
			forceBusyFlag(),
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			w, rec, err := f.NamedRecord(c, "commit")
			if err != nil {
				return err
			}
			out, err := control.Commit(w, rec, c.String("message"), c.Bool("force"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, out)
			}
			if out.Committed == "" {
				fmt.Fprintf(c.App.Writer, "%s: nothing to commit\n", rec.Name)
				return nil
			}
			fmt.Fprintf(c.App.Writer, "committed %d file(s) in %s as %.12s\n", len(out.Files), rec.Name, out.Committed)
			return nil
		},
	}
}
