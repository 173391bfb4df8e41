package configcmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/workspace"
)

func ConfigCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "show or validate the merged configuration",
		Subcommands: []*cli.Command{
			{
				Name:  "show",
				Usage: "print the merged configuration (defaults < user file < repo .owt.toml) as TOML",
				Action: func(c *cli.Context) error {
					if err := cmdutil.NoArgs(c, "config show"); err != nil {
						return err
					}
					cfg, root, err := cmdutil.LoadConfig()
					if err != nil {
						return cmdutil.ConfigProblem(root, err)
					}
					out, err := config.Encode(cfg)
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
					files := []string{config.UserFile()}
					if root != "" {
						files = append(files, filepath.Join(root, config.RepoFile))
					}
					for _, f := range files {
						if _, err := os.Stat(f); err == nil {
							fmt.Fprintf(c.App.Writer, "%s: ok\n", f)
						}
					}
					fmt.Fprintln(c.App.Writer, "config is valid")
					return nil
				},
			},
		},
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
