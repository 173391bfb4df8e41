package landcmd

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/workspace"
)

// mergeContext is the merge package's view of a workspace: its git repo,
// its records, and what counts as uncommitted work there.
func mergeContext(w *workspace.Workspace) *land.Context { return control.MergeContext(w) }

func CheckCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "the report shown before merge, ship or delete: uncommitted files, ahead/behind, overlaps, predicted conflicts",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "into", Usage: "check against `BRANCH` instead of the recorded base"},
			&cli.BoolFlag{Name: "review", Usage: "include the AI review of what would land ([review] enabled always does)"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			// Where the worktree is: an agent's on a host is checked there.
			if ran, err := onHost(f, c, time.Minute); ran {
				return err
			}
			w, rec, err := f.NamedRecord(c, "check")
			if err != nil {
				return err
			}
			rep, err := mergeContext(w).Check(rec, c.String("into"))
			if err != nil {
				return err
			}
			out := checked{Report: rep}
			// An empty branch has nothing to review (and merge and ship
			// refuse it before any review).
			if (c.Bool("review") || w.Config.Review.Enabled) && !rep.Empty {
				res, err := control.ReviewForCheck(w, rec, c.String("into"), f.IO.ErrOut)
				if err != nil {
					return err
				}
				out.Review = &res
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, out)
			}
			fmt.Fprintln(c.App.Writer, rep.String())
			if out.Review != nil {
				fmt.Fprintln(c.App.Writer, out.Review.String())
			}
			for _, b := range rep.Blockers() {
				fmt.Fprintln(c.App.Writer, "  ! "+b)
			}
			if out.Review != nil && out.Review.Blocks() {
				fmt.Fprintln(c.App.Writer, "  ! the AI review "+reviewBlocker(*out.Review)+": merge and ship refuse without --accept-review")
			}
			return nil
		},
	}
}

// checked is owt check's JSON: the report, and the AI review when one
// was asked for.
type checked struct {
	land.Report
	Review *land.ReviewResult `json:"review,omitempty"`
}

func reviewBlocker(r land.ReviewResult) string {
	if r.Verdict == land.ReviewUnavailable {
		return "is unavailable"
	}
	return "fails"
}

// askCommand asks for the command of c (askFirst of its --yes).
func askCommand(f *cmdutil.Factory, c *cli.Context, report func() (land.Report, error), question, declined string) error {
	what := c.Command.Name
	if c.Bool("ship") {
		what += " --ship"
	}
	return askFirst(f.IO, c.Bool("yes"), what, report, question, declined)
}

// askFirst shows the check report (report may be nil) and asks; it returns
// nil to go on. yes (--yes) goes on without asking. With no terminal to
// ask on (a script, an agent's shell) and no --yes, it refuses: what
// follows merges, commits or removes worktrees, and nobody said yes to
// that. what names the command in that refusal; declined is the error
// when the person answers no. The report is only computed when it is
// shown.
func askFirst(ios *cmdutil.IOStreams, yes bool, what string, report func() (land.Report, error), question, declined string) error {
	if yes {
		return nil
	}
	if !ios.InTTY {
		// No one to ask: the command as given cannot run (bad usage).
		return cmdutil.Usagef("%s needs confirmation: pass --yes", what)
	}
	if report != nil {
		if rep, err := report(); err == nil {
			fmt.Fprintln(ios.ErrOut, rep.String())
			for _, b := range rep.Blockers() {
				fmt.Fprintln(ios.ErrOut, "  ! "+b)
			}
		}
	}
	if !cmdutil.Confirm(ios, question) {
		return errors.New(declined)
	}
	return nil
}
