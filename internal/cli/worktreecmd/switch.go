package worktreecmd

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/urfave/cli/v2"
)

func SwitchCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:         "switch",
		BashComplete: f.CompleteNames,
		Usage:        "go to an agent's session (switch-client inside tmux, attach outside)",
		ArgsUsage:    "NAME",
		Action: func(c *cli.Context) error {
			w, rec, err := f.NamedRecord(c, "switch")
			if err != nil {
				return err
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
		Name:         "attach",
		BashComplete: f.CompleteNames,
		Usage:        "go to an agent's session, recreating it on its worktree if tmux lost it",
		ArgsUsage:    "NAME",
		Action: func(c *cli.Context) error {
			w, rec, err := f.NamedRecord(c, "attach")
			if err != nil {
				return err
			}
			id, err := lifecycle.Of(w).EnsureSession(rec)
			if err != nil {
				return err
			}
			return goTo(w.Tmux, id)
		},
	}
}
