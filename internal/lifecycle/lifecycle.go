// Package lifecycle makes, mends and removes worktrees with their agents:
// create (and its rollback), delete, teardown after a merge, restart,
// attach, the files copied and linked into a worktree, and owt doctor
// with its repair of interrupted creates. It is the one place that knows
// the order of those steps and how to undo them.
//
// Imports hookfiles, notes, status (to publish), facts, templates, workspace,
// daemon, agent, config, git, forge, memory, setup, state, text, tmux and usage (Codex's
// rollouts, for the session to resume); never send, runner,
// inventory, monitor, run, cli or popups.
package lifecycle

import "github.com/owt-tmux/owt/internal/workspace"

// Worktrees is a workspace seen by its lifecycle: Of(w).Create(…),
// Of(w).Delete(…). It adds no state of its own.
type Worktrees struct{ *workspace.Workspace }

// Of is the lifecycle of the worktrees of w, a complete workspace (Open,
// OpenRoot).
func Of(w *workspace.Workspace) *Worktrees { return &Worktrees{w} }
