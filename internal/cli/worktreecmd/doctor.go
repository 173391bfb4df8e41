package worktreecmd

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/workspace"
)

func DoctorCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "find sessions, worktrees, records, branches and locks out of step, and a monitor not running (--fix repairs what is safe)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "fix", Usage: "repair what is safe; say what was left"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("doctor takes no arguments")
			}
			w, err := f.OpenWorkspace()
			if errors.Is(err, git.ErrNotRepo) || errors.Is(err, exec.ErrNotFound) {
				return preflightOnly(c, f, err)
			}
			if err != nil {
				return err
			}
			rep, err := lifecycle.Of(w).Doctor(c.Bool("fix"))
			if err != nil {
				return err
			}
			if k, ok := keysCheck(f.Tmux()); ok {
				rep.Checks = append(rep.Checks, k)
			}
			addStalePRs(w, &rep)
			addHostFindings(w, &rep, c.Bool("fix"))
			if c.Bool("json") {
				if err := cmdutil.PrintJSON(c.App.Writer, rep); err != nil {
					return err
				}
			} else {
				printDoctor(c.App.Writer, rep)
			}
			return doctorExit(rep, c.Bool("fix"))
		},
	}
}

// preflightOnly is owt doctor outside a repository (or without git): the
// machine's checks, with the user's own config, and why no more.
func preflightOnly(c *cli.Context, f *cmdutil.Factory, why error) error {
	w, _ := workspace.OpenRoot("", f.Tmux()) // a config that does not load: the defaults
	if self, err := filepath.EvalSymlinks(w.Self); err == nil {
		w.Self = self
	}
	rep := lifecycle.DoctorReport{Checks: lifecycle.Of(w).Preflight(), Findings: []lifecycle.Finding{}}
	if k, ok := keysCheck(f.Tmux()); ok {
		rep.Checks = append(rep.Checks, k)
	}
	if c.Bool("json") {
		if err := cmdutil.PrintJSON(c.App.Writer, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.App.Writer, "repo:    none: %v\n", why)
		printChecks(c.App.Writer, rep)
		if len(rep.Failed()) == 0 {
			fmt.Fprintln(c.App.Writer, "all good: every check passed (run owt doctor in a repository to check its agents too)")
		}
	}
	return doctorExit(rep, false)
}

// doctorExit is doctor's outcome: exit 1 with a count when a check
// failed or a problem is left, else 0.
func doctorExit(rep lifecycle.DoctorReport, fix bool) error {
	left, failed := len(rep.Left()), len(rep.Failed())
	var msg string
	switch {
	case left == 0 && failed == 0:
		return nil
	case left == 0:
		msg = fmt.Sprintf("%d check(s) failed; each says its fix", failed)
	case fix:
		msg = fmt.Sprintf("%d problem(s) left that are not safe to fix automatically", left)
	default:
		msg = fmt.Sprintf("%d problem(s) found; 'owt doctor --fix' repairs what is safe", left)
	}
	if left > 0 && failed > 0 {
		msg = fmt.Sprintf("%d check(s) failed, and %s", failed, msg)
	}
	return errors.New(msg)
}

func printDoctor(out io.Writer, rep lifecycle.DoctorReport) {
	fmt.Fprintf(out, "repo:    %s\nmonitor: %s\n", rep.Repo, rep.Monitor)
	printChecks(out, rep)
	if len(rep.Findings) == 0 {
		if len(rep.Failed()) == 0 {
			fmt.Fprintln(out, "all good: every check passed, every record has its worktree and session")
		} else {
			fmt.Fprintln(out, "every record has its worktree and session")
		}
		return
	}
	for _, f := range rep.Findings {
		mark := "!"
		if f.Fixed {
			mark = "fixed"
		}
		fmt.Fprintf(out, "%-5s %s: %s\n", mark, f.Kind, f.Detail)
		if f.Action != "" {
			fmt.Fprintf(out, "      → %s\n", f.Action)
		}
	}
}

// printChecks prints the preflight, a line a check, the fix under each
// that failed.
func printChecks(out io.Writer, rep lifecycle.DoctorReport) {
	for _, c := range rep.Checks {
		mark := "ok"
		if !c.OK {
			mark = "!"
		}
		fmt.Fprintf(out, "%-5s %s: %s\n", mark, c.Name, c.Detail)
		if c.Fix != "" {
			fmt.Fprintf(out, "      → %s\n", c.Fix)
		}
	}
}

// addStalePRs adds the open pull requests whose state the monitor could
// not refresh (gh not logged in, …): owt list shows it as stale.
func addStalePRs(w *workspace.Workspace, rep *lifecycle.DoctorReport) {
	if recs, err := w.Records(); err == nil {
		rep.Findings = append(rep.Findings, lifecycle.StalePRs(recs)...)
	}
}
