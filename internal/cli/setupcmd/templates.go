package setupcmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/templates"
)

// TemplatesCommand is owt templates: the task templates, built in and the
// user's, with where each comes from.
func TemplatesCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "templates",
		Usage: "list the task templates (owt new --template NAME): built in and [templates.NAME] of your config",
		Flags: []cli.Flag{cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c, "templates"); err != nil {
				return err
			}
			cfg, root, err := cmdutil.LoadConfig()
			if err != nil {
				return cmdutil.ConfigProblem(root, err)
			}
			all, err := templates.All(cfg, root)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, all)
			}
			tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TEMPLATE\tPROTOCOL\tDEFAULTS\tSOURCE")
			for _, t := range all {
				var defaults []string
				if t.Plan {
					defaults = append(defaults, "plan mode")
				}
				if t.Tool != "" {
					defaults = append(defaults, "tool "+t.Tool)
				}
				if t.Base != "" {
					defaults = append(defaults, "base "+t.Base)
				}
				if len(t.Checks) > 0 {
					defaults = append(defaults, "checks "+strings.Join(t.Checks, "; "))
				}
				d := strings.Join(defaults, ", ")
				if d == "" {
					d = "-"
				}
				fmt.Fprintln(tw, strings.Join([]string{t.Name, t.About, d, t.Source}, "\t"))
			}
			return tw.Flush()
		},
	}
}
