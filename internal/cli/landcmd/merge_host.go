package landcmd

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/workspace"
)

// remoteAgent finds the host of the agent c names (NAME@HOST, or a NAME
// no agent here has and one serving host does). routed says it is a
// host's; err why it cannot be reached.
func remoteAgent(f *cmdutil.Factory, c *cli.Context) (w *workspace.Workspace, h *hosts.Host, name string, routed bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteFindTimeout)
	defer cancel()
	h, name, _, routed, err = cmdutil.AgentHost(ctx, f.OpenWorkspace, c.Args().First())
	if !routed || err != nil {
		return nil, nil, name, routed, err
	}
	w, err = f.OpenWorkspace()
	return w, h, name, true, err
}

// askRemote is askCommand for an agent on a host: the report shown is
// the host's owt check of it, made where its worktree is.
func askRemote(f *cmdutil.Factory, c *cli.Context, w *workspace.Workspace, h *hosts.Host, name, question, declined string) error {
	report := func() (land.Report, error) { return control.CheckRemote(w, h, name) }
	return askCommand(f, c, report, question, declined)
}

// mergeOnHost merges an agent of a host: its branch comes home and
// merges here (control.MergeRemote), after the host's report of it and
// the user's yes. It reports whether the agent was a host's.
func mergeOnHost(f *cmdutil.Factory, c *cli.Context, o land.Options) (bool, error) {
	w, h, name, routed, err := remoteAgent(f, c)
	if !routed || err != nil {
		return routed, err
	}
	q := fmt.Sprintf("Bring %s@%s's branch home and merge it%s?", name, h.Name, hostRemovalNote(c.Bool("keep"), h.Name))
	if err := askRemote(f, c, w, h, name, q, "not merged"); err != nil {
		return true, err
	}
	out, err := control.MergeRemote(w, h, name, o, landOptions(f, c))
	return true, reportLanding(c, out, err)
}

// shipOnHost ships an agent of a host: its uncommitted work committed
// there, its branch brought home and merged here (control.ShipRemote),
// after the host's report of it and the user's yes.
func shipOnHost(f *cmdutil.Factory, c *cli.Context) (bool, error) {
	w, h, name, routed, err := remoteAgent(f, c)
	if !routed || err != nil {
		return routed, err
	}
	q := fmt.Sprintf("Commit everything in %s@%s there, bring its branch home and merge it%s?", name, h.Name, hostRemovalNote(c.Bool("keep"), h.Name))
	if err := askRemote(f, c, w, h, name, q, "not shipped"); err != nil {
		return true, err
	}
	out, err := control.ShipRemote(w, h, name, c.String("message"), landOptions(f, c))
	return true, reportLanding(c, out, err)
}

func hostRemovalNote(keep bool, host string) string {
	if keep {
		return ""
	}
	return ", then delete it on " + host
}

// onHost runs c on the host of the agent it names, as the same owt
// command there (cmdutil.RunOnHost): owt check and owt pr, which act
// where the worktree and the branch are.
func onHost(f *cmdutil.Factory, c *cli.Context, timeout time.Duration) (bool, error) {
	if c.NArg() != 1 {
		return false, nil // the command's own usage error
	}
	return cmdutil.RunOnHost(f, c, c.Args().First(), timeout, nil)
}
