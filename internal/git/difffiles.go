package git

import (
	"fmt"
	"strconv"
	"strings"
)

// FileChange is one file a worktree changed against its base, with its
// line counts (Binary when git counts no lines).
type FileChange struct {
	Path       string `json:"path"`
	Insertions int    `json:"insertions"`
	Deletions  int    `json:"deletions"`
	Binary     bool   `json:"binary,omitempty"`
	Untracked  bool   `json:"untracked,omitempty"`
}

// ChangedFiles lists what the worktree at dir changed against the merge
// base of base and HEAD (the comparison Diff sums up), then the untracked
// files it added, which a diff of tracked files does not show.
func ChangedFiles(dir, base string) ([]FileChange, error) {
	mb, err := runLine(dir, "merge-base", "--end-of-options", base, "HEAD")
	if err != nil {
		return nil, fmt.Errorf("git merge-base %s HEAD in %s: %w", base, dir, err)
	}
	out, err := run(dir, "diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", "--no-color", mb, "--")
	if err != nil {
		return nil, fmt.Errorf("git diff %s in %s: %w", mb, dir, err)
	}
	var files []FileChange
	for _, rec := range splitNUL(out) {
		f := strings.SplitN(rec, "\t", 3)
		if len(f) != 3 {
			continue
		}
		fc := FileChange{Path: f[2]}
		if f[0] == "-" {
			fc.Binary = true
		} else {
			fc.Insertions, _ = strconv.Atoi(f[0])
			fc.Deletions, _ = strconv.Atoi(f[1])
		}
		files = append(files, fc)
	}
	untracked, err := run(dir, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, fmt.Errorf("git ls-files in %s: %w", dir, err)
	}
	for _, p := range splitNUL(untracked) {
		files = append(files, FileChange{Path: p, Untracked: true})
	}
	return files, nil
}

// FileDiff is the diff of one changed file in the worktree at dir against
// the merge base of base and HEAD, coloured for a terminal when color is
// set. An untracked file shows as wholly added.
func FileDiff(dir, base string, f FileChange, color bool) (string, error) {
	colorFlag := "--no-color"
	if color {
		colorFlag = "--color=always"
	}
	if f.Untracked {
		// --no-index exits 1 when the files differ, which they always do.
		out, err := run(dir, "diff", "--no-index", "--no-ext-diff", colorFlag, "--", "/dev/null", f.Path)
		if err != nil && exitCode(err) != 1 {
			return "", fmt.Errorf("git diff %s in %s: %w", f.Path, dir, err)
		}
		return string(out), nil
	}
	mb, err := runLine(dir, "merge-base", "--end-of-options", base, "HEAD")
	if err != nil {
		return "", fmt.Errorf("git merge-base %s HEAD in %s: %w", base, dir, err)
	}
	out, err := run(dir, "diff", "--no-ext-diff", colorFlag, mb, "--", f.Path)
	if err != nil {
		return "", fmt.Errorf("git diff %s in %s: %w", f.Path, dir, err)
	}
	return string(out), nil
}
