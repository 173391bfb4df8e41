package landcmd

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/merge"
)

// mergeOnHost merges an agent of a host (NAME@HOST, or a NAME no agent
// here has and one serving host does): its branch comes home and merges
// here (control.MergeRemote), after the user's yes on a terminal. It
// reports whether the agent was a host's.
func mergeOnHost(f *cmdutil.Factory, c *cli.Context, o merge.Options) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteFindTimeout)
	defer cancel()
	h, name, _, routed, err := cmdutil.AgentHost(ctx, f.OpenWorkspace, c.Args().First())
	if !routed || err != nil {
		return routed, err
	}
	w, err := f.OpenWorkspace()
	if err != nil {
		return true, err
	}
	if !c.Bool("yes") && f.IO.InTTY {
		q := fmt.Sprintf("Bring %s@%s's branch home and merge it%s?", name, h.Name, map[bool]string{true: "", false: ", then delete it on " + h.Name}[c.Bool("keep")])
		if !cmdutil.Confirm(f.IO, q) {
			return true, fmt.Errorf("not merged")
		}
	}
	out, err := control.MergeRemote(w, h, name, o, landOptions(f, c))
	return true, reportLanding(c, out, err)
}
