package worktreecmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/ssh"
)

// onHost runs command c on the host of the agent called ref, when ref
// is NAME@HOST or a NAME no agent here has and one host serving this
// repository does: the same owt command there (owt host exec), its
// flags as set here, its output streamed here, its exit code ours. It
// reports whether it ran there; when not, c goes on here. timeout 0 has
// no deadline (owt wait without --timeout: ^C is the bound).
func onHost(f *cmdutil.Factory, c *cli.Context, ref string, timeout time.Duration) (bool, error) {
	return onHostAsked(f, c, ref, timeout, nil)
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
	return onHostAsked(f, c, c.Args().First(), time.Minute, ask)
}

// onHostAsked is onHost with a question put to the user, once the host
// is known, before anything runs there.
func onHostAsked(f *cmdutil.Factory, c *cli.Context, ref string, timeout time.Duration, ask func(name, host string) error) (bool, error) {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	// Finding the host has its own bound: owt wait's forever is for
	// the waiting, not for asking the hosts who has the agent.
	findCtx, findCancel := context.WithTimeout(ctx, remoteListTimeout)
	defer findCancel()
	h, name, root, routed, err := cmdutil.AgentHost(findCtx, f.OpenWorkspace, ref)
	if !routed || err != nil {
		return routed, err
	}
	if ask != nil {
		if err := ask(name, h.Name); err != nil {
			return true, err
		}
	}
	argv := []string{c.Command.Name}
	for _, fl := range c.Command.Flags {
		n := fl.Names()[0]
		if !c.IsSet(n) {
			continue
		}
		if _, ok := fl.(*cli.BoolFlag); ok {
			if c.Bool(n) {
				argv = append(argv, "--"+n)
			}
			continue
		}
		argv = append(argv, fmt.Sprintf("--%s=%v", n, c.Value(n)))
	}
	argv = append(argv, "--", name)
	clone, _ := h.Clone(root)
	err = h.Exec(ctx, clone, argv, f.IO.Out, f.IO.ErrOut)
	var ee *ssh.ExitError
	if errors.As(err, &ee) {
		return true, cmdutil.ExitWith(ee.Code) // the host's owt said why, on stderr
	}
	return true, err
}
