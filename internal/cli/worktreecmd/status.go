package worktreecmd

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/workspace"
)

func StatusCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show an agent's status (since when, from hook, screen or owt) and the last lines of its pane",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Value: 15, Usage: "show the pane's last `N` lines"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("status takes one NAME")
			}
			if c.Int("lines") < 0 {
				return cmdutil.Usagef("--lines must be 0 or more")
			}
			if ran, err := onHost(f, c, c.Args().First(), time.Minute); ran {
				return err
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			v, err := status.Of(w, c.Args().First(), c.Int("lines"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, v)
			}
			printStatus(c.App.Writer, v)
			return nil
		},
	}
}

func printStatus(out io.Writer, v status.View) {
	status := v.Status
	if v.ExitCode != nil {
		status = fmt.Sprintf("%s(%d)", status, *v.ExitCode)
	}
	switch {
	case v.Status == "waiting" && v.WaitingFor != "":
		status += " (needs you: " + v.WaitingFor + ")"
	case v.Status == "limited":
		status += " (needs you: " + v.Limit.Why(time.Now()) + ")"
	case v.Status == "waiting":
		status += " (needs you)"
	case v.Interrupted:
		status += " (interrupted)"
	}
	fmt.Fprintf(out, "%s: %s for %s (from %s)\n", v.Name, status, workspace.Age(time.Since(v.Since)), v.Source)
	if v.InPlace {
		fmt.Fprintf(out, "it works in place, in your checkout %s (no worktree)\n", v.Path)
	}
	if !v.TurnError.Empty() {
		fmt.Fprintf(out, "its last turn failed (%s); the task is kept: 'owt send %s --task' sends it again\n", v.TurnError, v.Name)
	}
	if d := v.Done; d != nil {
		switch {
		case !d.Fail.Empty():
			fmt.Fprintf(out, "it said with owt done: failed (%s)\n", d.Fail)
		case !d.Blocked.Empty():
			fmt.Fprintf(out, "it said with owt done: blocked (%s)\n", d.Blocked)
		default:
			fmt.Fprintf(out, "it said with owt done: finished %s\n", d.Summary)
		}
	}
	if v.Elsewhere != "" {
		fmt.Fprintln(out, v.Elsewhere)
		return
	}
	if !v.Live {
		fmt.Fprintf(out, "its tmux session %s is gone ('owt attach %s' recreates it)\n", v.Session, v.Name)
		return
	}
	if len(v.Lines) > 0 {
		lines := make([]string, len(v.Lines))
		for i, l := range v.Lines {
			lines[i] = l.Line()
		}
		fmt.Fprintf(out, "── %s, pane %s ──\n%s\n", v.Session, v.Pane, strings.Join(lines, "\n"))
	}
}
