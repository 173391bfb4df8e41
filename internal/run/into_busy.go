package run

import (
	"fmt"
	"path/filepath"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
)

// IntoBusy says when into is checked out in an owt worktree whose agent
// is starting, working or waiting: landing there would change the files
// under that agent mid-turn, so nothing lands until it is idle or gone;
// "" else (checked out nowhere, in a checkout of the user's, or by an
// idle agent: owt merge's rules for a checkout apply then).
func IntoBusy(repoRoot, into string) (string, error) {
	if into == "" {
		return "", nil
	}
	path, found, err := (git.Repo{Root: repoRoot}).CheckedOutAt(into)
	if err != nil || !found {
		return "", err
	}
	f, err := state.ForRepo(repoRoot).Peek()
	if err != nil {
		return "", fmt.Errorf("read worktree state: %w", err)
	}
	for _, rec := range f.Records {
		if !sameDir(rec.Path, path) {
			continue
		}
		switch rec.Status {
		case state.Starting, state.Working, state.Waiting:
			return fmt.Sprintf("%s is checked out in %s, where the agent %s is %s: landing there would change its files mid-turn; "+
				"the run lands there once it is idle", into, path, rec.Name, rec.Status), nil
		}
	}
	return "", nil
}

// sameDir reports whether a and b name the same directory, links resolved.
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
