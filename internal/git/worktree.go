package git

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Worktree is one entry of `git worktree list`.
type Worktree struct {
	Path     string // absolute path of the worktree
	Head     string // commit checked out ("" for a bare entry or unborn branch)
	Branch   string // short branch name, "" if detached
	Bare     bool
	Detached bool
	Prunable bool // its directory is gone; `git worktree prune` would drop it
	Locked   bool
}

// AddWorktree creates a new branch from base and checks it out in a new
// worktree at path. The branch does not track base: an agent's branch is its
// own, and `git pull`/`git status` there should not talk about the base.
//
// git creates the branch before it checks the target path, so a failure can
// leave a branch behind; AddWorktree deletes it again when it did not exist
// before, so a failed create leaves nothing for the caller to clean up.
//
// A relative path is taken relative to r.Root.
func (r Repo) AddWorktree(path, branch, base string) error {
	// git validates the name itself when it creates the branch; only the
	// names it would misread are refused here (saving a process per create).
	if !plausibleBranchName(branch) {
		return fmt.Errorf("git worktree add %s: invalid branch name %q", path, branch)
	}
	args := []string{"worktree", "add", "--quiet", "--no-track", "-b", branch, "--", path}
	if base != "" {
		args = append(args, base)
	}
	var err error
	lockErr := r.withWorktreeLock(true, func() error {
		_, err = r.run(args...)
		return nil
	})
	if lockErr != nil {
		return fmt.Errorf("git worktree add %s: %w", path, lockErr)
	}
	if err == nil {
		return nil
	}
	if !r.HasCommits() {
		return ErrNoCommits // git's "not a valid object name: 'main'" says nothing of why
	}
	wrapped := fmt.Errorf("git worktree add %s: %w", path, err)
	// git refuses an existing branch before doing anything (LC_ALL=C keeps
	// the message stable). Any other failure came after git created the
	// branch, so the branch is ours to remove. Asking git rather than
	// checking beforehand leaves no window for another process's branch.
	if strings.Contains(err.Error(), "a branch named '"+branch+"' already exists") {
		return wrapped
	}
	if r.BranchExists(branch) {
		if derr := r.DeleteBranch(branch, true); derr != nil {
			wrapped = errors.Join(wrapped, fmt.Errorf("roll back: %w", derr))
		}
	}
	return wrapped
}

// RemoveWorktree removes the worktree at path and prunes git's records of
// worktrees whose directories are gone. force passes --force twice, which
// also removes a worktree with uncommitted changes or a lock: callers must
// have asked the user first. When the directory was already deleted by hand,
// only the prune runs, which is what git needs to forget it.
//
// A relative path is taken relative to r.Root.
func (r Repo) RemoveWorktree(path string, force bool) error {
	return r.withWorktreeLock(true, func() error { return r.removeWorktree(path, force) })
}

func (r Repo) removeWorktree(path string, force bool) error {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.Root, abs)
	}
	if _, err := os.Lstat(abs); err == nil {
		args := []string{"worktree", "remove"}
		if force {
			args = append(args, "--force", "--force")
		}
		if _, err := r.run(append(args, "--", abs)...); err != nil {
			return fmt.Errorf("git worktree remove %s: %w", path, err)
		}
	} else if !os.IsNotExist(err) {
		return fmt.Errorf("git worktree remove %s: %w", path, err)
	}
	if _, err := r.run("worktree", "prune"); err != nil {
		return fmt.Errorf("git worktree prune: %w", err)
	}
	return nil
}

// Worktrees lists all worktrees of the repository, the main one first.
func (r Repo) Worktrees() ([]Worktree, error) {
	common, err := r.commonDir()
	if err != nil {
		return nil, err
	}
	return worktrees(r.Root, common)
}

// worktrees lists the worktrees of the repository whose common dir is
// common, running git in dir.
func worktrees(dir, common string) ([]Worktree, error) {
	var out []byte
	var err error
	_ = withWorktreeLockIn(common, false, func() error {
		// Unlocked (a change outlasted the wait), a walk can meet an add's
		// half-written admin files: git says "failed to read …"; the
		// files are whole a moment later.
		for try := 0; ; try++ {
			out, err = run(dir, "worktree", "list", "--porcelain", "-z")
			if err == nil || try == 5 || !strings.Contains(err.Error(), "failed to read") {
				return nil
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("git worktree list: %w", err)
	}
	return parseWorktrees(out), nil
}

// parseWorktrees reads `git worktree list --porcelain -z`: each attribute is
// NUL-terminated and an empty field ends a worktree. Unknown attributes are
// skipped so newer git versions keep working.
func parseWorktrees(out []byte) []Worktree {
	var list []Worktree
	var cur *Worktree
	for _, field := range strings.Split(string(out), "\x00") {
		if field == "" {
			cur = nil
			continue
		}
		key, val, _ := strings.Cut(field, " ")
		if key == "worktree" {
			list = append(list, Worktree{Path: val})
			cur = &list[len(list)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "HEAD":
			cur.Head = val
		case "branch":
			cur.Branch = strings.TrimPrefix(val, "refs/heads/")
		case "bare":
			cur.Bare = true
		case "detached":
			cur.Detached = true
		case "prunable":
			cur.Prunable = true
		case "locked":
			cur.Locked = true
		}
	}
	return list
}
