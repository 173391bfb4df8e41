package git

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LockFile is a lock git left in a repository: git creates these for the
// length of one command, so one that stays means a git process died.
type LockFile struct {
	Path    string
	ModTime time.Time
}

// LockFiles lists the lock files present in the repository's git dirs:
// index.lock and HEAD.lock of the main checkout and of every linked
// worktree, and config, packed-refs and ref locks in the common dir.
func (r Repo) LockFiles() ([]LockFile, error) {
	dirs := []string{r.CommonDir}
	if linked, err := os.ReadDir(filepath.Join(r.CommonDir, "worktrees")); err == nil {
		for _, e := range linked {
			if e.IsDir() {
				dirs = append(dirs, filepath.Join(r.CommonDir, "worktrees", e.Name()))
			}
		}
	}
	var out []LockFile
	add := func(p string) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, LockFile{Path: p, ModTime: fi.ModTime()})
		}
	}
	for _, d := range dirs {
		add(filepath.Join(d, "index.lock"))
		add(filepath.Join(d, "HEAD.lock"))
	}
	for _, name := range []string{"config.lock", "packed-refs.lock", "shallow.lock"} {
		add(filepath.Join(r.CommonDir, name))
	}
	err := filepath.WalkDir(filepath.Join(r.CommonDir, "refs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a ref folder vanishing while we look is fine
		}
		if !d.IsDir() && strings.HasSuffix(p, ".lock") {
			add(p)
		}
		return nil
	})
	return out, err
}

// PruneWorktrees makes git forget worktrees whose folders are gone (git
// worktree prune). Worktrees that still exist, and locked ones, are kept.
func (r Repo) PruneWorktrees() error {
	return r.withWorktreeLock(true, func() error {
		if _, err := r.run("worktree", "prune"); err != nil {
			return fmt.Errorf("git worktree prune: %w", err)
		}
		return nil
	})
}
