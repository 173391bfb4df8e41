package land

import (
	"errors"
	"fmt"

	"github.com/owt-tmux/owt/internal/workspace"
)

// ErrUnknownBase is owt pr --base naming no local branch: bad usage.
var ErrUnknownBase = errors.New("no such branch")

// checkBase refuses a --base that is not a local branch before anything
// runs: gh pr create takes a branch name, and the commits offered are
// counted from it (a revision such as HEAD~0 is not one).
func checkBase(w *workspace.Workspace, base string) error {
	if !w.Repo.BranchExists(base) {
		return fmt.Errorf("unknown base %q: %w", base, ErrUnknownBase)
	}
	return nil
}
