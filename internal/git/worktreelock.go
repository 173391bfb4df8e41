package git

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// worktreeLockName is owt's lock in the git common dir. git writes a new
// worktree's admin files (worktrees/<id>/gitdir, commondir, HEAD) one by
// one, without a lock, and every git command that walks the worktrees
// reads them: a walk during an add fails with "failed to read
// .git/worktrees/<id>/commondir". owt holds this lock exclusively while it
// adds, removes or prunes worktrees and shared while it walks them, so its
// own commands never race each other. (Not a *.lock name git uses, so
// 'owt doctor' does not take it for a stale git lock.)
const worktreeLockName = "owt-worktree.lock"

// withWorktreeLock runs fn holding the repository's worktree lock,
// exclusively when fn changes the worktrees.
func (r Repo) withWorktreeLock(exclusive bool, fn func() error) error {
	common, err := r.commonDir()
	if err != nil {
		return err
	}
	return withWorktreeLockIn(common, exclusive, fn)
}

func withWorktreeLockIn(common string, exclusive bool, fn func() error) error {
	lock := flock.New(filepath.Join(common, worktreeLockName))
	take, verb := lock.RLock, "read"
	if exclusive {
		take, verb = lock.Lock, "change"
	}
	if err := take(); err != nil {
		if !exclusive {
			// A common dir owt cannot write to (another user's repo): a
			// read goes ahead unlocked, as git's own readers do.
			return fn()
		}
		return fmt.Errorf("lock the worktrees of %s to %s them: %w", common, verb, err)
	}
	defer func() { _ = lock.Unlock() }()
	return fn()
}

// commonDir is the repository's git common dir: the one FindRepo read,
// else Root/.git when that is a directory (a main checkout), else git's
// answer.
func (r Repo) commonDir() (string, error) {
	if r.CommonDir != "" {
		return r.CommonDir, nil
	}
	if fi, err := os.Stat(filepath.Join(r.Root, ".git")); err == nil && fi.IsDir() {
		return filepath.Join(r.Root, ".git"), nil
	}
	dir, err := runLine(r.Root, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("git rev-parse --git-common-dir in %s: %w", r.Root, notRepo(err))
	}
	return dir, nil
}
