package worktreecmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/tmux"
)

// switchOnHost goes to an agent on a host: inside tmux, a new window of
// the current session running ssh -t HOST tmux attach to its session
// (closing the window detaches, the agent runs on); outside tmux, this
// terminal becomes that ssh. It reports whether the agent was a host's.
func switchOnHost(f *cmdutil.Factory, ref string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), remoteListTimeout)
	defer cancel()
	h, name, root, routed, err := cmdutil.AgentHost(ctx, f.OpenWorkspace, ref)
	if !routed || err != nil {
		return routed, err
	}
	clone, _ := h.Clone(root)
	items, err := h.Agents(ctx, clone)
	if err != nil {
		return true, err
	}
	session := ""
	for _, it := range items {
		if it.Name == name {
			session = it.Session
		}
	}
	if session == "" {
		return true, cmdutil.CodeError{Code: cmdutil.ExitUnknown, Msg: fmt.Sprintf("no agent %s on %s", name, h.Name)}
	}
	return true, attachOnHost(f.IO.Out, f.Tmux(), h, name, session)
}

// attachOnHost attaches to the tmux session of the agent called name on
// h: inside tmux, a new window of the current session running ssh -t
// HOST tmux attach (closing the window detaches, the agent runs on);
// outside tmux, this terminal becomes that ssh.
func attachOnHost(out io.Writer, tm *tmux.Client, h *hosts.Host, name, session string) error {
	argv, err := h.AttachArgv(session)
	if err != nil {
		return err
	}
	if !tm.InsideThis() {
		bin, err := exec.LookPath(argv[0])
		if err != nil {
			return err
		}
		return syscall.Exec(bin, argv, os.Environ())
	}
	here, err := tm.Here()
	if err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	pane, err := tm.NewWindow(tmux.NewWindow{Session: here.SessionID, Name: name + "@" + h.Name, Dir: home, Argv: argv})
	if err != nil {
		return fmt.Errorf("open a window on %s: %w", h.Name, err)
	}
	if _, err := tm.Run("select-window", "-t", pane); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s@%s: in window %s (ssh -t %s tmux attach)\n", name, h.Name, pane, h.Config.Address)
	return nil
}
