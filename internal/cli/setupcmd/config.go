package setupcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/httpcall"
	"github.com/owt-tmux/owt/internal/workspace"
)

func ConfigCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "show or validate the merged configuration",
		Subcommands: []*cli.Command{
			{
				Name:  "show",
				Usage: "print the merged configuration (defaults < user file < repo .owt.toml) as TOML; a webhook URL shows its host only",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "origin", Usage: "after each value, the file it came from (or default)"}},
				Action: func(c *cli.Context) error {
					if err := cmdutil.NoArgs(c, "config show"); err != nil {
						return err
					}
					cfg, root, err := cmdutil.LoadConfig()
					if err != nil {
						return cmdutil.ConfigProblem(root, err)
					}
					if u := cfg.Notify.Webhook.URL; u != "" {
						// Its path is its secret (Slack's, Discord's), and
						// this output is pasted into bug reports.
						cfg.Notify.Webhook.URL = httpcall.Redact(u) + "/…"
					}
					encode := config.Encode
					if c.Bool("origin") {
						encode = func(cfg config.Config) (string, error) { return config.EncodeWithOrigins(cfg, root) }
					}
					out, err := encode(cfg)
					if err != nil {
						return err
					}
					_, err = fmt.Fprint(c.App.Writer, out)
					return err
				},
			},
			{
				Name:  "validate",
				Usage: "check the config files; every unknown or mistyped key is named with its file",
				Action: func(c *cli.Context) error {
					if err := cmdutil.NoArgs(c, "config validate"); err != nil {
						return err
					}
					cfg, root, err := cmdutil.LoadConfig()
					var problems []string
					var ps config.Problems
					switch {
					case errors.As(err, &ps):
						for _, p := range ps {
							problems = append(problems, p.Error())
						}
					case err != nil:
						problems = append(problems, err.Error())
					}
					if err == nil || len(ps) > 0 { // the tools are checked on what did load
						var tps config.Problems
						if _, perr := workspace.Tools(cfg); errors.As(perr, &tps) {
							for _, p := range config.Locate(root, tps) {
								if !containsString(problems, p.Error()) { // [tools.x] prompt is checked by both
									problems = append(problems, p.Error())
								}
							}
						}
					}
					if len(problems) > 0 {
						for _, p := range problems {
							fmt.Fprintln(f.IO.ErrOut, p)
						}
						return cmdutil.ExitWith(cmdutil.ExitError)
					}
					printValid(c.App.Writer, config.Files(root))
					return nil
				},
			},
		},
	}
}

// printValid names each config file read and says the config is valid;
// with none, it names the paths looked at and says the defaults are.
func printValid(out io.Writer, files []string) {
	var read []string
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			fmt.Fprintf(out, "%s: ok\n", f)
			read = append(read, f)
		}
	}
	if len(read) == 0 {
		fmt.Fprintf(out, "no config file (looked for %s); the defaults are valid\n", strings.Join(files, " and "))
		return
	}
	fmt.Fprintf(out, "config is valid (read %s; defaults for the rest)\n", strings.Join(read, " and "))
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
