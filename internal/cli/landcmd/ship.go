package landcmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/land"
)

func ShipCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "ship",
		Usage:     "commit everything in a worktree, merge it into its base, then remove the worktree",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "commit `MESSAGE` (default: the task)"},
			&cli.BoolFlag{Name: "keep", Usage: "keep the worktree, session and branch afterwards"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"},
			forceBusyFlag(),
			reviewFlag(), acceptReviewFlag(),
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("ship takes one NAME")
			}
			if ran, err := shipOnHost(f, c); ran {
				return err
			}
			w, rec, err := f.NamedRecord(c, "ship")
			if err != nil {
				return err
			}
			mc := mergeContext(w)
			report := func() (land.Report, error) { return mc.Check(rec, "") }
			if err := control.RefuseBusy(w, rec, "shipping", c.Bool("force")); err != nil {
				return err
			}
			if err := askCommand(f, c, report, fmt.Sprintf("Commit everything in %s, merge it into %s%s?", rec.Name, rec.Base, removalNote(c.Bool("keep"))), "not shipped"); err != nil {
				return err
			}
			out, err := control.Ship(w, rec, c.String("message"), landOptions(f, c))
			return reportLanding(c, out, err)
		},
	}
}
