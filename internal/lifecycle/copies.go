package lifecycle

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// EditedCopies are the files owt copied into the worktree of r (.env and
// friends) that git does not show, being ignored, and that now differ from
// the main checkout's copy, or whose copy there is gone. The worktree holds
// the only copy of them: git status, and so the uncommitted work, never
// lists them, merge and ship never commit them (an ignored file may hold
// secrets), and removing the worktree would lose them. Copies git does
// show (untracked, not ignored) are uncommitted work already (WorkFiles).
func EditedCopies(r *state.Record) ([]string, error) {
	hookFiles := map[string]bool{}
	for _, h := range r.HookFiles {
		hookFiles[h.Path] = true // compared without owt's hooks (hook.Work)
	}
	var out []string
	for _, name := range r.Copied {
		if hookFiles[name] {
			continue
		}
		path := filepath.Join(r.Path, filepath.FromSlash(name))
		if _, err := os.Lstat(path); err != nil {
			continue // removed in the worktree: nothing there to keep
		}
		if sameFile(filepath.Join(r.Repo, filepath.FromSlash(name)), path) {
			continue
		}
		ignored, err := git.IsIgnored(r.Path, name)
		if err != nil {
			return nil, fmt.Errorf("check %s for edited copies: %w", r.Path, err)
		}
		if ignored {
			out = append(out, name)
		}
	}
	return out, nil
}
