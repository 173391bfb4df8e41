package worktreecmd

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// deleteDryRun says what owt delete NAME would remove and lose, and
// removes nothing (with --json: what would be lost, as lifecycle.Loss).
func deleteDryRun(c *cli.Context, w *workspace.Workspace, rec *state.Record) error {
	loss, err := lifecycle.Of(w).WhatWouldBeLost(rec)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return cmdutil.PrintJSON(c.App.Writer, loss)
	}
	fmt.Fprintf(c.App.Writer, "would delete %s: session %s, worktree %s, branch %s\n", rec.Name, rec.Session, rec.Path, rec.Branch)
	if loss.Empty() {
		fmt.Fprintln(c.App.Writer, "nothing would be lost")
	} else {
		fmt.Fprintf(c.App.Writer, "it would LOSE %s (owt delete refuses that without --force)\n", loss)
	}
	return nil
}

func DeleteCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "delete",
		Aliases:   []string{"rm"},
		Usage:     "kill an agent's session, remove its worktree and branch (refuses to lose work without --force)",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "delete even with uncommitted changes or unmerged commits"},
			&cli.BoolFlag{Name: "keep-branch", Usage: "keep the branch"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"},
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would be removed and lost, and delete nothing"},
			// --accept is what a user was shown and said yes to losing (a
			// popup's confirmation, made on another machine): the delete
			// goes on only while the loss is still within it.
			&cli.StringFlag{Name: "accept", Hidden: true, Usage: "delete losing at most this (JSON of what would be lost)"},
			// --cut-off-only is another machine's owt doctor --fix undoing
			// what a cut-off owt new left here, and nothing else.
			&cli.BoolFlag{Name: "cut-off-only", Hidden: true, Usage: "delete only what a cut-off owt new left"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("delete takes one NAME")
			}
			if c.Bool("json") && !c.Bool("dry-run") {
				return cmdutil.Usagef("--json goes with --dry-run: owt delete prints no data")
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
			if c.Bool("dry-run") {
				return deleteDryRun(c, w, rec)
			}
			o := lifecycle.DeleteOptions{Force: c.Bool("force"), KeepBranch: c.Bool("keep-branch"), CutOffOnly: c.Bool("cut-off-only")}
			if c.IsSet("accept") {
				var accept lifecycle.Loss
				if err := json.Unmarshal([]byte(c.String("accept")), &accept); err != nil {
					return cmdutil.Usagef("--accept: %v", err)
				}
				o.Accept = &accept
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
			if err := control.Delete(w, name, o); err != nil {
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
