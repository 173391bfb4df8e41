package git

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

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

// IgnoredDirs lists the folders git ignores whole in the worktree at dir
// (an ignored folder is named, not what it holds), relative to it with
// forward slashes and no trailing slash: one git process.
func IgnoredDirs(dir string) ([]string, error) {
	out, err := run(dir, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	if err != nil {
		return nil, fmt.Errorf("list ignored folders in %s: %w", dir, err)
	}
	var dirs []string
	for _, p := range splitNUL(out) {
		if d, ok := strings.CutSuffix(p, "/"); ok {
			dirs = append(dirs, d)
		}
	}
	return dirs, nil
}

// GitDirs reads, without running git, the git dir of the worktree at dir
// (its own: HEAD, index) and the repository's common one (refs,
// packed-refs): the same folder for a main checkout, .git/worktrees/ID
// and .git for a linked worktree.
func GitDirs(dir string) (own, common string, err error) {
	dotGit := filepath.Join(dir, ".git")
	fi, err := os.Stat(dotGit)
	if err != nil {
		return "", "", fmt.Errorf("find the git dir of %s: %w", dir, err)
	}
	if fi.IsDir() {
		return dotGit, dotGit, nil
	}
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return "", "", fmt.Errorf("find the git dir of %s: %w", dir, err)
	}
	own, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
	if !ok {
		return "", "", fmt.Errorf("find the git dir of %s: .git holds no gitdir line", dir)
	}
	if !filepath.IsAbs(own) {
		own = filepath.Join(dir, own)
	}
	common = own
	if c, err := os.ReadFile(filepath.Join(own, "commondir")); err == nil {
		common = strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(own, common)
		}
	}
	return filepath.Clean(own), filepath.Clean(common), nil
}
