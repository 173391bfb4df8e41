package worktreecmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/lifecycle"
)

// onHost is cmdutil.RunOnHost with no question: a command that only
// reads or waits. timeout 0 has no deadline (owt wait without --timeout:
// ^C is the bound).
func onHost(f *cmdutil.Factory, c *cli.Context, ref string, timeout time.Duration) (bool, error) {
	return cmdutil.RunOnHost(f, c, ref, timeout, nil)
}

// deleteOnHost is owt delete of an agent on a host (control.DeleteRemote):
// after the user's yes on a terminal (the host's owt has no terminal to
// ask on), the host's owt delete, which refuses to lose work there
// without --force. It reports whether the agent was a host's.
func deleteOnHost(f *cmdutil.Factory, c *cli.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h, name, _, routed, err := cmdutil.AgentHost(ctx, f.OpenWorkspace, c.Args().First())
	if !routed || err != nil {
		return routed, err
	}
	if c.Bool("dry-run") {
		return cmdutil.RunOnHost(f, c, c.Args().First(), time.Minute, nil) // says what it would lose there
	}
	if !c.Bool("yes") && f.IO.InTTY {
		if !cmdutil.Confirm(f.IO, fmt.Sprintf("Delete %s on %s (its session, worktree and branch there)?", name, h.Name)) {
			return true, fmt.Errorf("not deleted")
		}
	}
	w, err := f.OpenWorkspace()
	if err != nil {
		return true, err
	}
	o := lifecycle.DeleteOptions{Force: c.Bool("force"), KeepBranch: c.Bool("keep-branch")}
	if c.IsSet("accept") {
		return true, cmdutil.Usagef("--accept is for the host's own owt delete")
	}
	err = control.DeleteRemote(w, h, name, o)
	var he *control.HostError
	if errors.As(err, &he) && (he.Code == cmdutil.ExitUsage || he.Code == cmdutil.ExitUnknown) {
		return true, cmdutil.CodeError{Code: he.Code, Msg: fmt.Sprintf("on %s: %s", h.Name, he.Msg)}
	}
	if err != nil {
		return true, err
	}
	fmt.Fprintf(c.App.Writer, "deleted %s@%s\n", name, h.Name)
	return true, nil
}
