package landcmd

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/workspace"
)

func CleanupCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "cleanup",
		Usage: "remove worktrees whose branch is merged into its base (default) or untouched for DAYS",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "merged", Usage: "worktrees whose branch is merged into its base (the default)"},
			&cli.IntFlag{Name: "stale", Usage: "worktrees untouched for `DAYS` (only when nothing would be lost, unless --force)"},
			&cli.BoolFlag{Name: "force", Usage: "with --stale: also remove stale worktrees holding unmerged or uncommitted work"},
			&cli.BoolFlag{Name: "include-live", Usage: "also remove worktrees whose agent still runs (session live, not exited)"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "only list what would be removed"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("cleanup takes no arguments")
			}
			o := land.CleanupOptions{Merged: c.Bool("merged"), Stale: c.IsSet("stale"), Force: c.Bool("force")}
			if o.Stale {
				days := c.Int("stale")
				if days < 0 {
					return cmdutil.Usagef("--stale DAYS must be 0 or more")
				}
				o.StaleAfter = time.Duration(days) * 24 * time.Hour
			}
			if o.Force && !o.Stale {
				return cmdutil.Usagef("--force only goes with --stale DAYS (merged worktrees lose nothing)")
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			o.AgentAlive, o.IncludeLive = w.AgentAlive, c.Bool("include-live")
			items, err := mergeContext(w).PlanCleanup(o)
			if err != nil {
				return err
			}
			var doomed []land.CleanupItem
			for _, it := range items {
				if it.Remove {
					doomed = append(doomed, it)
				}
			}
			if c.Bool("dry-run") || len(doomed) == 0 {
				if c.Bool("json") {
					return cmdutil.PrintJSON(c.App.Writer, items)
				}
				printCleanup(c, items, c.Bool("dry-run"))
				return nil
			}
			if !c.Bool("json") {
				printCleanup(c, items, true)
			}
			if err := askCommand(f, c, nil, fmt.Sprintf("Remove these %d worktree(s) with their sessions and branches?", len(doomed)), "nothing removed"); err != nil {
				return err
			}
			return removeCleanup(c, w, items)
		},
	}
}

func removeCleanup(c *cli.Context, w *workspace.Workspace, items []land.CleanupItem) error {
	finishEvenIfHungUp()
	failed := 0
	for i, it := range items {
		if !it.Remove {
			continue
		}
		var err error
		if it.Discards {
			err = lifecycle.Of(w).Delete(it.Name, lifecycle.DeleteOptions{Force: true})
		} else {
			err = lifecycle.Of(w).Teardown(it.Name, lifecycle.Landing{BranchTip: it.BranchTip})
		}
		if err != nil {
			failed++
			items[i].Remove = false
			items[i].Reason = "kept: " + err.Error()
			if !c.Bool("json") {
				fmt.Fprintf(c.App.ErrWriter, "owt: %s\n", cmdutil.OneLine(err.Error()))
			}
			continue
		}
		if !c.Bool("json") {
			fmt.Fprintf(c.App.Writer, "removed %s (%s)\n", it.Name, it.Reason)
		}
	}
	if c.Bool("json") {
		if err := cmdutil.PrintJSON(c.App.Writer, items); err != nil {
			return err
		}
	}
	if failed > 0 {
		return cmdutil.ExitWith(cmdutil.ExitError)
	}
	return nil
}

func printCleanup(c *cli.Context, items []land.CleanupItem, planning bool) {
	out := c.App.Writer
	if len(items) == 0 {
		fmt.Fprintln(out, "no worktrees")
		return
	}
	n := 0
	for _, it := range items {
		if it.Remove {
			n++
			verb := "removed"
			if planning {
				verb = "would remove"
			}
			fmt.Fprintf(out, "%s %s (%s)\n", verb, it.Name, it.Reason)
		}
	}
	for _, it := range items {
		if !it.Remove {
			fmt.Fprintf(out, "%s %s\n", it.Name, it.Reason)
		}
	}
	if n == 0 {
		fmt.Fprintln(out, "nothing to remove")
	}
}
