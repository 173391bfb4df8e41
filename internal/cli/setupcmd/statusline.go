package setupcmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/workspace"
)

// StatusLineCommand prints the status summary for status bars other than
// tmux's own segment (which reads an option and needs no process).
func StatusLineCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "status-line",
		Usage: "print the agents summary shown by #{owt_status} (colours on a terminal; NO_COLOR or a pipe: plain)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "tmux", Usage: "tmux #[…] styles, as in the status bar"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("status-line takes no arguments")
			}
			recs, err := workspace.AllRecords()
			if err != nil {
				return err
			}
			sum := status.Current(recs)
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, sum)
			}
			style := status.StylePlain
			switch {
			case f.IO.NoColor:
			case c.Bool("tmux"):
				style = status.StyleTmux
			case f.IO.OutTTY:
				style = status.StyleANSI
			}
			_, err = fmt.Fprintln(c.App.Writer, sum.Render(style))
			return err
		},
	}
}
