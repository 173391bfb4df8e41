package landcmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/land"
)

// syncOutcome is one worktree's line of owt sync --json.
type syncOutcome struct {
	land.SyncResult
	Error string `json:"error,omitempty"`
}

func SyncCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "bring the base's new commits into a worktree's branch (merge, or --rebase); refuses a dirty worktree",
		ArgsUsage: "NAME | --all",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "every worktree of this repo"},
			&cli.BoolFlag{Name: "rebase", Usage: "rebase the branch onto its base instead of merging the base in"},
			&cli.BoolFlag{Name: "leave-conflicts", Usage: "on conflict, leave the conflicts in the worktree to resolve"},
			&cli.BoolFlag{Name: "force", Usage: "go ahead while the agent works or waits for you (changes its files under it)"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			all := c.Bool("all")
			if all && c.NArg() > 0 || !all && c.NArg() != 1 {
				return cmdutil.Usagef("sync takes one NAME, or --all")
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			recs, err := w.Select(c.Args().Slice(), all, nil)
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				return fmt.Errorf("no worktrees to sync in %s", w.Repo.Root)
			}
			var outcomes []syncOutcome
			failed := 0
			for _, r := range recs {
				res, err := control.Sync(w, r, c.Bool("rebase"), c.Bool("leave-conflicts"), c.Bool("force"))
				o := syncOutcome{SyncResult: res}
				if err != nil {
					failed++
					o.Error = err.Error()
				}
				outcomes = append(outcomes, o)
			}
			if c.Bool("json") {
				if err := cmdutil.PrintJSON(c.App.Writer, outcomes); err != nil {
					return err
				}
			} else {
				for _, o := range outcomes {
					switch {
					case o.Error != "" && len(outcomes) > 1:
						fmt.Fprintf(f.IO.ErrOut, "owt: %s\n", cmdutil.OneLine(o.Error))
					case o.Error != "":
					case o.UpToDate:
						fmt.Fprintf(c.App.Writer, "%s: up to date with %s\n", o.Name, o.Base)
					default:
						fmt.Fprintf(c.App.Writer, "%s: brought %d commit(s) of %s in (%s)\n", o.Name, o.Brought, o.Base, o.Method)
					}
				}
			}
			switch {
			case failed == 0:
				return nil
			case len(outcomes) == 1:
				return fmt.Errorf("%s", outcomes[0].Error)
			default:
				return cmdutil.ExitWith(cmdutil.ExitError)
			}
		},
	}
}
