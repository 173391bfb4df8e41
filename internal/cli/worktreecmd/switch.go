package worktreecmd

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
	"github.com/urfave/cli/v2"
)

func SwitchCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "switch",
		Usage:     "go to an agent's session (switch-client inside tmux, attach outside)",
		ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			if c.NArg() == 1 {
				if ran, err := switchOnHost(f, c.Args().First()); ran {
					return err
				}
			}
			w, rec, err := f.NamedRecord(c, "switch")
			if err != nil {
				return err
			}
			if rec.Swarm != nil {
				return goToWorker(w, rec)
			}
			id, err := lifecycle.Of(w).LiveSession(rec)
			if err != nil {
				return err
			}
			if id == "" {
				return fmt.Errorf("%s has no tmux session; 'owt attach %s' recreates it", rec.Name, rec.Name)
			}
			return goTo(w.Tmux, id)
		},
	}
}

func AttachCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "attach",
		Usage:     "go to an agent's session, recreating it on its worktree if tmux lost it",
		ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			w, rec, err := f.NamedRecord(c, "attach")
			if err != nil {
				return err
			}
			if rec.Swarm != nil {
				return goToWorker(w, rec) // its window is its host's to recreate, not its own
			}
			id, err := lifecycle.Of(w).EnsureSession(rec)
			if err != nil {
				return err
			}
			return goTo(w.Tmux, id)
		},
	}
}

// goToWorker goes to a swarm worker's own window (its pane, by id).
func goToWorker(w *workspace.Workspace, rec *state.Record) error {
	err := w.CheckPane(rec)
	if err == nil {
		err = w.Tmux.CheckPaneIn(rec.Pane, rec.SessionID)
	}
	if err != nil {
		return fmt.Errorf("%s: its window is gone (%w); 'owt swarm stop %s' ends its swarm", rec.Name, err, rec.Swarm.Host)
	}
	return goTo(w.Tmux, rec.Pane)
}
