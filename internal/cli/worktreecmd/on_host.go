package worktreecmd

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
)

// onHost is cmdutil.RunOnHost with no question: a command that only
// reads or waits. timeout 0 has no deadline (owt wait without --timeout:
// ^C is the bound).
func onHost(f *cmdutil.Factory, c *cli.Context, ref string, timeout time.Duration) (bool, error) {
	return cmdutil.RunOnHost(f, c, ref, timeout, nil)
}

// deleteOnHost is owt delete of an agent on a host: after the user's yes
// on a terminal (the host's owt has no terminal to ask on), the host's
// owt delete, which refuses to lose work there without --force.
func deleteOnHost(f *cmdutil.Factory, c *cli.Context) (bool, error) {
	ask := func(name, host string) error {
		if c.Bool("yes") || !f.IO.InTTY {
			return nil
		}
		if !cmdutil.Confirm(f.IO, fmt.Sprintf("Delete %s on %s (its session, worktree and branch there)?", name, host)) {
			return fmt.Errorf("not deleted")
		}
		return nil
	}
	return cmdutil.RunOnHost(f, c, c.Args().First(), time.Minute, ask)
}
