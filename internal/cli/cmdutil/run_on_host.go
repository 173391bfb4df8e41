package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/ssh"
)

// findHostTimeout bounds asking the hosts which one has an agent.
const findHostTimeout = 15 * time.Second

// RunOnHost runs command c on the host of the agent called ref, when ref
// is NAME@HOST or a NAME no agent here has and one host serving this
// repository does: the same owt command there (owt host exec; only
// hosts.Verbs), its flags as set here, its output streamed here, its
// exit code ours. ask, when set, is put to the user once the host is
// known, before anything runs there. It reports whether it ran there;
// when not, c goes on here. timeout 0 has no deadline.
func RunOnHost(f *Factory, c *cli.Context, ref string, timeout time.Duration, ask func(name, host string) error) (bool, error) {
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()
	// Finding the host has its own bound: owt wait's forever is for
	// the waiting, not for asking the hosts who has the agent.
	findCtx, findCancel := context.WithTimeout(ctx, findHostTimeout)
	defer findCancel()
	h, name, root, routed, err := AgentHost(findCtx, f.OpenWorkspace, ref)
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
		return true, ExitWith(ee.Code) // the host's owt said why, on stderr
	}
	return true, err
}
