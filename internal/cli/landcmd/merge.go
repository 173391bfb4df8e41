package landcmd

import (
	"errors"
	"fmt"
	"io"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/land"
)

// landed is the JSON of merge and ship: what landed, and whether the
// worktree was removed afterwards.
type landed = control.Landed

func MergeCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge a worktree's branch into its base (never touching a dirty checkout), then remove the worktree",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "into", Usage: "merge into `BRANCH` instead of the recorded base"},
			&cli.BoolFlag{Name: "rebase", Usage: "rebase the branch onto the target, then fast-forward"},
			&cli.BoolFlag{Name: "squash", Usage: "land all its commits as one"},
			&cli.StringFlag{Name: "strategy", Usage: "settle conflicting hunks by `SIDE`: ours (the target's) or theirs (the branch's)"},
			&cli.BoolFlag{Name: "leave-conflicts", Usage: "on conflict, merge the target into the branch in its worktree and leave the conflicts there"},
			&cli.BoolFlag{Name: "keep", Usage: "keep the worktree, session and branch afterwards"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"},
			forceBusyFlag(),
			reviewFlag(), acceptReviewFlag(),
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("merge takes one NAME")
			}
			o := land.Options{
				Into: c.String("into"), Rebase: c.Bool("rebase"), Squash: c.Bool("squash"),
				Strategy: c.String("strategy"), LeaveConflicts: c.Bool("leave-conflicts"),
			}
			if err := o.Validate(); err != nil {
				return cmdutil.Usagef("%v", err)
			}
			if ran, err := mergeOnHost(f, c, o); ran {
				return err
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			rec, err := w.Get(c.Args().First())
			if err != nil {
				return err
			}
			mc := mergeContext(w)
			target := o.Into
			if target == "" {
				target = rec.Base
			}
			report := func() (land.Report, error) { return mc.Check(rec, o.Into) }
			// Refused before being asked; with --yes no one is asked and
			// control.Merge's own look, a moment later, says the same.
			if !c.Bool("yes") {
				if err := control.RefuseBusy(w, rec, "merging", c.Bool("force")); err != nil {
					return err
				}
			}
			if err := askCommand(f, c, report, fmt.Sprintf("Merge %s into %s%s?", rec.Branch, target, removalNote(c.Bool("keep"))), "not merged"); err != nil {
				return err
			}
			out, err := control.Merge(w, rec, o, landOptions(f, c))
			return reportLanding(c, out, err)
		},
	}
}

// forceBusyFlag lets merge and ship land while the agent works or waits.
// A new flag each time: urfave keeps state in a flag, so none is shared.
func forceBusyFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "force", Usage: "go ahead while the agent works or waits for you (commits and ends its turn)"}
}

// reviewFlag and acceptReviewFlag ask for the AI review before landing
// and land whatever it says. New flags each time (urfave keeps state).
func reviewFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "review", Usage: "have an AI tool review the diff first ([review] tool); a fail stops the landing"}
}

func acceptReviewFlag() *cli.BoolFlag {
	return &cli.BoolFlag{Name: "accept-review", Usage: "land even when the AI review fails or is unavailable"}
}

// landOptions are the LandOptions of merge's and ship's flags.
func landOptions(f *cmdutil.Factory, c *cli.Context) control.LandOptions {
	return control.LandOptions{Keep: c.Bool("keep"), Force: c.Bool("force"),
		Review: c.Bool("review"), AcceptReview: c.Bool("accept-review"), ReviewLog: f.IO.ErrOut}
}

func removalNote(keep bool) string {
	if keep {
		return ""
	}
	return " and remove its worktree, session and branch"
}

// reportLanding prints what a merge or ship did (out is empty when
// nothing landed) and returns its error.
func reportLanding(c *cli.Context, out landed, err error) error {
	printRefusal(c.App.ErrWriter, err)
	if out.Name == "" {
		return err
	}
	if c.Bool("json") {
		if jerr := cmdutil.PrintJSON(c.App.Writer, out); jerr != nil {
			return jerr
		}
	} else {
		printLanding(c.App.Writer, out)
	}
	return err
}

// printRefusal shows, when err is the AI review failing a landing, what
// the review said: its verdict and its findings, drawn inert. (A review
// without a verdict is the error's one line.)
func printRefusal(w io.Writer, err error) {
	var refused *control.ReviewRefused
	if errors.As(err, &refused) && refused.Result.Verdict != land.ReviewUnavailable {
		fmt.Fprintln(w, "owt: review: "+refused.Result.Headline())
		for _, l := range refused.Result.Lines() {
			fmt.Fprintln(w, "  "+l)
		}
	}
}

// finishEvenIfHungUp keeps owt alive through a teardown that kills the
// tmux session it may be running in: a half-done teardown would leave a
// worktree without its session, or a branch without its record.
func finishEvenIfHungUp() { signal.Ignore(syscall.SIGHUP) }

func printLanding(wr io.Writer, out landed) {
	if out.Committed != "" {
		fmt.Fprintf(wr, "committed %d file(s) in %s as %.12s\n", len(out.Files), out.Name, out.Committed)
	}
	where := "branch updated, no checkout touched"
	if out.Checkout != "" {
		where = "checkout " + out.Checkout + " updated"
	}
	if out.Review != nil {
		fmt.Fprintln(wr, "review: "+out.Review.Headline())
		for _, l := range out.Review.Lines() {
			fmt.Fprintln(wr, "  "+l)
		}
	}
	fmt.Fprintf(wr, "merged %s into %s (%s): %.12s → %.12s, %s\n", out.Branch, out.Target, out.Method, out.From, out.Commit, where)
	switch {
	case out.Removed && out.Stays != "":
		fmt.Fprintf(wr, "ended %s: session and record; %s\n", out.Name, out.Stays)
	case out.Removed:
		fmt.Fprintf(wr, "removed %s: session, worktree and branch\n", out.Name)
	}
}
