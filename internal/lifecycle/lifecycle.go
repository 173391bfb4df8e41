// Package lifecycle makes, lists, mends and removes worktrees with their
// agents: create (and its rollback), delete, teardown after a merge,
// restart, attach, the files copied and linked into a worktree, owt
// doctor with its repair of interrupted creates, and owt list (each
// worktree with its session and how its branch stands, the git figures
// cached so a redraw runs no git). It is the one place that knows the
// order of those steps and how to undo them.
package lifecycle

import "github.com/owt-tmux/owt/internal/workspace"

// Worktrees is a workspace seen by its lifecycle: Of(w).Create(…),
// Of(w).Delete(…). It adds no state of its own.
type Worktrees struct{ *workspace.Workspace }

// Of is the lifecycle of the worktrees of w, a complete workspace (Open,
// OpenRoot).
func Of(w *workspace.Workspace) *Worktrees { return &Worktrees{w} }
