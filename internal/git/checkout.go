package git

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// CheckedOutAt returns the worktree (the main checkout or a linked one)
// where branch is checked out, or where a rebase of it is in progress
// (git shows such a worktree as detached, yet finishing the rebase moves
// the branch). found is false when no worktree holds the branch.
func (r Repo) CheckedOutAt(branch string) (path string, found bool, err error) {
	wts, err := r.Worktrees()
	if err != nil {
		return "", false, err
	}
	for _, wt := range wts {
		if wt.Bare || wt.Prunable {
			continue
		}
		if wt.Branch == branch {
			return wt.Path, true, nil
		}
		if wt.Detached && r.rebasing(wt.Path) == branch {
			return wt.Path, true, nil
		}
	}
	return "", false, nil
}

// rebasing returns the branch a rebase in progress in the worktree at
// path will move, or "".
func (r Repo) rebasing(path string) string {
	gitDir := r.CommonDir
	if data, err := os.ReadFile(filepath.Join(path, ".git")); err == nil {
		// A linked worktree's .git is a file: "gitdir: <dir>".
		if d, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
			if !filepath.IsAbs(d) {
				d = filepath.Join(path, d)
			}
			gitDir = d
		}
	}
	for _, dir := range []string{"rebase-merge", "rebase-apply"} {
		if head, err := os.ReadFile(filepath.Join(gitDir, dir, "head-name")); err == nil {
			return strings.TrimPrefix(strings.TrimSpace(string(head)), "refs/heads/")
		}
	}
	return ""
}

// TrackedChanges lists the paths in the worktree at dir whose content
// differs from HEAD in the index or the working tree: modified, staged,
// deleted, renamed and conflicted files. Untracked and ignored files are
// not listed: a merge in that checkout never discards them (see
// UntrackedCollisions for the ones it would overwrite).
func TrackedChanges(dir string) ([]string, error) {
	out, err := run(dir, "status", "--porcelain=v1", "-z", "--untracked-files=no", "--ignore-submodules=none")
	if err != nil {
		return nil, fmt.Errorf("git status in %s: %w", dir, notRepo(err))
	}
	entries, err := parseStatus(out)
	if err != nil {
		return nil, fmt.Errorf("git status in %s: %w", dir, err)
	}
	var files []string
	for _, e := range entries {
		if e.XY == "??" || e.XY == "!!" {
			continue
		}
		files = append(files, e.Path)
		if e.Orig != "" {
			files = append(files, e.Orig)
		}
	}
	return files, nil
}

// OperationInProgress names the git operation left unfinished in the
// worktree at dir ("merge", "rebase", "cherry-pick", "revert"), or "".
func OperationInProgress(dir string) (string, error) {
	markers := []struct{ path, op string }{
		{"MERGE_HEAD", "merge"}, {"rebase-merge", "rebase"}, {"rebase-apply", "rebase"},
		{"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"},
	}
	args := []string{"rev-parse", "--path-format=absolute"}
	for _, m := range markers {
		args = append(args, "--git-path", m.path)
	}
	out, err := run(dir, args...)
	if err != nil {
		return "", fmt.Errorf("git rev-parse --git-path in %s: %w", dir, notRepo(err))
	}
	paths := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(paths) != len(markers) {
		return "", fmt.Errorf("git rev-parse --git-path in %s: unexpected output %q", dir, out)
	}
	for i, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			return markers[i].op, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return "", nil
}

// UntrackedCollisions lists the paths that moving the worktree at dir from
// commit from to commit to would write over although git does not track
// them there: files the target adds that already exist on disk (an
// ignored .env or log the user keeps), or that sit where the target needs
// a directory. git itself refuses to overwrite untracked files but treats
// ignored ones as expendable; owt treats both as the user's. A path the
// checkout already tracks is no collision: both sides added it, and the
// merge itself decides (or conflicts) on its content.
func UntrackedCollisions(dir, from, to string) ([]string, error) {
	out, err := run(dir, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=A", "--end-of-options", from, to, "--")
	if err != nil {
		return nil, fmt.Errorf("git diff %s %s in %s: %w", from, to, dir, err)
	}
	seen := map[string]bool{}
	var hits []string
	for _, rel := range splitNUL(out) {
		// Every parent of an added file must be a directory or absent.
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			parent := strings.Join(parts[:i], "/")
			if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(parent))); err == nil && !fi.IsDir() && !seen[parent] {
				seen[parent] = true
				hits = append(hits, parent)
			}
		}
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel))); err == nil && !seen[rel] {
			seen[rel] = true
			hits = append(hits, rel)
		}
	}
	tracked, err := Tracked(dir, hits...)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(hits, func(p string) bool { return tracked[p] }), nil
}
