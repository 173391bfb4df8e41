package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/inventory"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

func newCommand() *cli.Command {
	return &cli.Command{
		Name:      "new",
		Usage:     "start an agent on a task in a new branch, worktree and tmux session",
		ArgsUsage: "TASK...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "worktree name (default: derived from the task)"},
			&cli.StringFlag{Name: "branch", Usage: "branch name (default: <type>/<name>)"},
			&cli.StringFlag{Name: "base", Usage: "local branch to start from and merge back into (default: the current branch)"},
			&cli.StringFlag{Name: "tool", Usage: "agent tool (see owt tools; default: [agent] tool)"},
			&cli.BoolFlag{Name: "no-agent", Usage: "open a shell instead of an agent"},
			&cli.BoolFlag{Name: "plan", Usage: "start the tool in its plan / read-only mode"},
			&cli.BoolFlag{Name: "no-setup", Usage: "skip dependency install and setup commands"},
			&cli.BoolFlag{Name: "switch", Usage: "switch to the new session (attach when outside tmux)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			w, err := openWorkspace()
			if err != nil {
				return err
			}
			if !c.Bool("json") {
				w.Log = os.Stderr
			}
			w.Warn = os.Stderr
			rec, err := lifecycle.Of(w).Create(lifecycle.CreateOptions{
				Task:    strings.Join(c.Args().Slice(), " "),
				Name:    c.String("name"),
				Branch:  c.String("branch"),
				Base:    c.String("base"),
				Tool:    c.String("tool"),
				NoAgent: c.Bool("no-agent"),
				Plan:    c.Bool("plan"),
				NoSetup: c.Bool("no-setup"),
			})
			if errors.Is(err, lifecycle.ErrEmptyTask) || errors.Is(err, lifecycle.ErrBadOption) {
				// No task, an invalid --name or --branch, a --base that does
				// not exist: bad usage, like a missing NAME or an unknown --tool.
				return usageError{err.Error()}
			}
			if err != nil {
				return err
			}
			if c.Bool("json") {
				items := inventory.Collect(w.Tmux, []*state.Record{rec}, inventory.ListOptions{Fresh: true})
				if err := printJSON(c.App.Writer, items[0]); err != nil {
					return err
				}
			} else {
				tool := rec.Tool
				if rec.NoAgent {
					tool = "shell"
				}
				fmt.Fprintf(c.App.Writer, "%s: %s on %s in %s (tmux session %s)\n", rec.Name, tool, rec.Branch, rec.Path, rec.Session)
			}
			if c.Bool("switch") {
				return goTo(w.Tmux, rec.SessionID)
			}
			return nil
		},
	}
}

// goTo moves the user to a session: switch-client inside tmux, else attach
// (replacing owt with the tmux client so the terminal belongs to it).
func goTo(tm *tmux.Client, sessionID string) error {
	if tm.InsideThis() {
		return tm.SwitchClient(sessionID)
	}
	argv := tm.AttachArgv(sessionID)
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(bin, argv, os.Environ())
}
