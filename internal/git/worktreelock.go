package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

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
	if !exclusive {
		// A reader waits for a change at most readerWait: an add holds the
		// lock for its whole checkout, post-checkout hooks included, and
		// owt list or doctor must not hang behind a slow one. After that,
		// or when the common dir takes no lock file (another user's repo),
		// it reads unlocked, as git's own readers do.
		ctx, cancel := context.WithTimeout(context.Background(), readerWait)
		defer cancel()
		if ok, err := lock.TryRLockContext(ctx, 10*time.Millisecond); err != nil || !ok {
			return fn()
		}
		defer func() { _ = lock.Unlock() }()
		return fn()
	}
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock the worktrees of %s to change them: %w", common, err)
	}
	defer func() { _ = lock.Unlock() }()
	return fn()
}

// readerWait bounds how long a walk of the worktrees waits for a change in
// progress before it reads anyway.
const readerWait = 2 * time.Second

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
	dir, err := r.runLine("rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", fmt.Errorf("git rev-parse --git-common-dir in %s: %w", r.Root, notRepo(err))
	}
	return dir, nil
}
