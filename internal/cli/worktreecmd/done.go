package worktreecmd

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// DoneCommand is owt done: an agent's explicit signal that its task ended.
func DoneCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "done",
		Usage: "run by an agent in its worktree: its task is finished (or failed, or blocked on a question)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "summary", Usage: "`TEXT` saying what was done, for the user and for tasks that build on it"},
			&cli.StringFlag{Name: "fail", Usage: "the task cannot be done: `REASON`"},
			&cli.StringFlag{Name: "blocked", Usage: "the task needs an answer first: `QUESTION`"},
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c, "done"); err != nil {
				return err
			}
			sig, err := doneSignal(c)
			if err != nil {
				return err
			}
			dir, _ := os.Getwd()
			rec, err := status.RecordDone(os.Getenv, dir, sig)
			if errors.Is(err, status.ErrNotInWorktree) {
				return cmdutil.Usagef("owt done runs inside an agent's owt worktree: %v", err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(c.App.Writer, doneLine(rec.Name, sig))
			return nil
		},
	}
}

// doneSignal reads the flags: at most one of --fail and --blocked, and
// neither given empty.
func doneSignal(c *cli.Context) (state.DoneSignal, error) {
	sig := state.DoneSignal{
		Summary: untrusted.From(strings.TrimSpace(c.String("summary"))),
		Fail:    untrusted.From(strings.TrimSpace(c.String("fail"))),
		Blocked: untrusted.From(strings.TrimSpace(c.String("blocked"))),
		At:      time.Now(),
	}
	if c.IsSet("fail") && c.IsSet("blocked") {
		return sig, cmdutil.Usagef("done takes at most one of --fail and --blocked")
	}
	if c.IsSet("fail") && sig.Fail.Empty() {
		return sig, cmdutil.Usagef("done --fail needs a REASON")
	}
	if c.IsSet("blocked") && sig.Blocked.Empty() {
		return sig, cmdutil.Usagef("done --blocked needs a QUESTION")
	}
	return sig, nil
}

// doneLine says what was recorded, and no more: whether the task is done
// is decided on evidence, later.
func doneLine(name string, sig state.DoneSignal) string {
	switch {
	case !sig.Fail.Empty():
		return fmt.Sprintf("recorded for %s: the task failed (%s)", name, cmdutil.Shown(sig.Fail.Block()))
	case !sig.Blocked.Empty():
		return fmt.Sprintf("recorded for %s: blocked on a question (%s)", name, cmdutil.Shown(sig.Blocked.Block()))
	}
	return fmt.Sprintf("recorded for %s: finished (owt still checks commits, a clean tree and the checks)", name)
}
