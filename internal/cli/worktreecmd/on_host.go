package worktreecmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/hosts"
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
		return true, hostCode(h, deleteDryRunOnHost(f, c, h, name))
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
	if err := hostCode(h, control.DeleteRemote(w, h, name, o)); err != nil {
		return true, err
	}
	fmt.Fprintf(c.App.Writer, "deleted %s@%s\n", name, h.Name)
	return true, nil
}

// deleteDryRunOnHost says what owt delete NAME@HOST would remove there
// and lose (control.RemoteLoss: commits here already are not lost), and
// removes nothing.
func deleteDryRunOnHost(f *cmdutil.Factory, c *cli.Context, h *hosts.Host, name string) error {
	w, err := f.OpenWorkspace()
	if err != nil {
		return err
	}
	loss, err := control.RemoteLoss(w, h, name)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return cmdutil.PrintJSON(c.App.Writer, loss)
	}
	it, err := control.RemoteAgent(w, h, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "would delete %s@%s: session %s, worktree %s, branch %s there\n", name, h.Name, it.Session, it.Path, it.Branch)
	if loss.Empty() {
		fmt.Fprintln(c.App.Writer, "nothing would be lost")
	} else {
		fmt.Fprintf(c.App.Writer, "it would LOSE %s (owt delete refuses that without --force)\n", loss)
	}
	return nil
}

// hostCode keeps the exit code of a host's owt that found bad usage or
// no such agent there.
func hostCode(h *hosts.Host, err error) error {
	var he *control.HostError
	if errors.As(err, &he) && (he.Code == cmdutil.ExitUsage || he.Code == cmdutil.ExitUnknown) {
		return cmdutil.CodeError{Code: he.Code, Msg: fmt.Sprintf("on %s: %s", h.Name, he.Msg)}
	}
	return err
}
