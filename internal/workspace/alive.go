package workspace

import (
	"os"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/state"
)

// AgentAlive reports whether removing r's worktree would take something
// running from under someone: its agent, not exited, in its live session
// (on this tmux server or on the other one that made it, see Locator); or,
// for a shell (--no-agent), a program running in it (an editor, a dev
// server) rather than the shell waiting at its prompt. When tmux does not
// answer it says alive: what asks (cleanup) removes worktrees.
func (w *Workspace) AgentAlive(r *state.Record) bool {
	if !r.NoAgent && r.Status == state.Exited {
		return false
	}
	loc, err := ListLocator(w.Tmux)
	if err != nil {
		return true
	}
	where := loc.Locate(r)
	if where.Place == Gone {
		return false
	}
	if !r.NoAgent {
		return true
	}
	if r.Pane == "" {
		return true
	}
	cmd, err := loc.ClientFor(where).Display(r.Pane, "#{pane_current_command}")
	return err != nil || !isShell(cmd)
}

// isShell reports whether a pane's foreground command is a shell at its
// prompt.
func isShell(cmd string) bool {
	switch cmd {
	case "sh", "bash", "zsh", "fish", "dash", "ksh", "tcsh", "csh", "nu", "elvish", "xonsh":
		return true
	}
	return cmd != "" && cmd == filepath.Base(os.Getenv("SHELL"))
}
