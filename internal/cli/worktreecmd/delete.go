package worktreecmd

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/lifecycle"
)

func DeleteCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:         "delete",
		BashComplete: f.CompleteNames,
		Aliases:      []string{"rm"},
		Usage:        "kill an agent's session, remove its worktree and branch (refuses to lose work without --force)",
		ArgsUsage:    "NAME",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "delete even with uncommitted changes or unmerged commits"},
			&cli.BoolFlag{Name: "keep-branch", Usage: "keep the branch"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("delete takes one NAME")
			}
			if ran, err := deleteOnHost(f, c); ran {
				return err
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			name := c.Args().First()
			rec, err := w.Get(name)
			if err != nil {
				return err
			}
			if !c.Bool("yes") && f.IO.InTTY && rec.Swarm == nil && !rec.InPlace { // a swarm worker is refused, not asked about; an in-place one loses nothing
				q := fmt.Sprintf("Delete %s (worktree %s, branch %s)?", rec.Name, rec.Path, rec.Branch)
				if loss, err := lifecycle.Of(w).WhatWouldBeLost(rec); err == nil && !loss.Empty() && c.Bool("force") {
					q = fmt.Sprintf("Delete %s and LOSE %s?", rec.Name, loss)
				}
				if !cmdutil.Confirm(f.IO, q) {
					return fmt.Errorf("not deleted")
				}
			}
			if err := control.Delete(w, name, lifecycle.DeleteOptions{Force: c.Bool("force"), KeepBranch: c.Bool("keep-branch")}); err != nil {
				return err
			}
			if rec.InPlace {
				fmt.Fprintf(c.App.Writer, "deleted %s: its session and record; %s\n", name, lifecycle.InPlaceStays(rec))
				return nil
			}
			fmt.Fprintf(c.App.Writer, "deleted %s\n", name)
			return nil
		},
	}
}
