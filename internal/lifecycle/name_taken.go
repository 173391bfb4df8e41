package lifecycle

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/workspace"
)

// namedBranch is the branch Create gives a worktree named name for task:
// the kind the task's words suggest, then the name.
func namedBranch(name, task string) string {
	_, derived := workspace.DeriveName(task)
	return strings.SplitN(derived, "/", 2)[0] + "/" + name
}

// NameTaken says why Create would refuse the explicit name for task (a
// worktree, branch, folder or tmux session of that name exists), "" when
// it is free: the same test, made before anything is asked of Create.
// With no tmux server running, no session can be in the way.
func (w *Worktrees) NameTaken(name, task string) (string, error) {
	branches, err := w.Repo.NamesInUse()
	if err != nil {
		return "", fmt.Errorf("list branches: %w", err)
	}
	f, err := w.Store.Peek()
	if err != nil {
		return "", fmt.Errorf("read worktree records: %w", err)
	}
	live := map[string]bool{}
	if w.Tmux != nil && w.Tmux.Running() {
		sv, err := w.Tmux.Survey()
		if err != nil {
			return "", fmt.Errorf("list tmux sessions: %w", err)
		}
		for _, s := range sv.Sessions {
			live[s.Name] = true
		}
	}
	_, why := w.taken(f, name, namedBranch(name, task), live, branches)
	return why, nil
}
