package git

import "fmt"

// IsTracked reports whether the file at rel (relative to the worktree at
// dir, slash-separated) is in that worktree's index.
func IsTracked(dir, rel string) (bool, error) {
	out, err := run(dir, "ls-files", "-z", "--", rel)
	if err != nil {
		return false, fmt.Errorf("git ls-files %s in %s: %w", rel, dir, err)
	}
	return len(splitNUL(out)) > 0, nil
}

// IsIgnored reports whether git ignores the untracked path rel in the
// worktree at dir (.gitignore, info/exclude, the user's excludes file).
func IsIgnored(dir, rel string) (bool, error) {
	_, err := run(dir, "check-ignore", "-q", "--", rel)
	if err == nil {
		return true, nil
	}
	if exitCode(err) == 1 {
		return false, nil
	}
	return false, fmt.Errorf("git check-ignore %s in %s: %w", rel, dir, err)
}

// SkipWorktree marks a tracked file of the worktree at dir so git leaves
// its local changes alone: they are not shown by git status, not staged by
// git add -A, not committed. The mark lives in that worktree's own index,
// so the main checkout and other worktrees are not affected.
func SkipWorktree(dir, rel string) error {
	if _, err := run(dir, "update-index", "--skip-worktree", "--", rel); err != nil {
		return fmt.Errorf("git update-index --skip-worktree %s in %s: %w", rel, dir, err)
	}
	return nil
}

// NoSkipWorktree undoes SkipWorktree: git sees the file's changes again.
func NoSkipWorktree(dir, rel string) error {
	if _, err := run(dir, "update-index", "--no-skip-worktree", "--", rel); err != nil {
		return fmt.Errorf("git update-index --no-skip-worktree %s in %s: %w", rel, dir, err)
	}
	return nil
}

// IgnoredFiles lists the untracked files git ignores in the worktree at
// dir (.gitignore, info/exclude, the user's excludes file), as paths
// relative to it with forward slashes.
func IgnoredFiles(dir string) ([]string, error) {
	out, err := run(dir, "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("list ignored files in %s: %w", dir, err)
	}
	return splitNUL(out), nil
}
