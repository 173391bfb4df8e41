package git

import (
	"bytes"
	"fmt"
)

// StartMerge merges ref into the branch checked out in dir and stops
// before committing, whatever happens (git merge --no-ff --no-commit):
// conflicts are left in the files with their markers, for whoever
// resolves them there to finish the merge with a commit of their own.
// rerere is off for it, so no recorded resolution is applied behind
// anyone's back. It returns the conflicted files (none when git merged
// every file; the merge is in progress all the same). A merge git
// refused to start (an untracked file in the way) is an error, and
// nothing is left in progress.
func StartMerge(dir, ref, message string) ([]string, error) {
	args := []string{"-c", "rerere.enabled=false", "merge", "--no-ff", "--no-commit", "--no-edit", "--quiet", "--no-stat", "-m", message, "--end-of-options", ref}
	_, err := runWith(dir, editorEnv, nil, args...)
	conflicts, cerr := UnmergedFiles(dir)
	if cerr != nil {
		return nil, cerr
	}
	if err != nil && len(conflicts) == 0 {
		if op, _ := OperationInProgress(dir); op == "merge" {
			// Started, then failed for another reason: owt's own merge,
			// in a worktree that was clean, taken back.
			_, _ = run(dir, "merge", "--abort")
		}
		return nil, fmt.Errorf("git merge %s in %s: %w", ref, dir, err)
	}
	return conflicts, nil
}

// AbortMerge takes back a merge owt started with StartMerge in dir (a
// worktree that was clean before it): git merge --abort.
func AbortMerge(dir string) error {
	if _, err := run(dir, "merge", "--abort"); err != nil {
		return fmt.Errorf("git merge --abort in %s: %w", dir, err)
	}
	return nil
}

// FileAt returns the bytes of path in commit (git cat-file blob
// COMMIT:PATH); ok is false when commit has no such file.
func (r Repo) FileAt(commit, path string) (data []byte, ok bool, err error) {
	if _, err := r.run("cat-file", "-e", "--end-of-options", commit+":"+path); err != nil {
		return nil, false, nil
	}
	out, err := r.run("cat-file", "blob", "--end-of-options", commit+":"+path)
	if err != nil {
		return nil, false, fmt.Errorf("git cat-file blob %s:%s: %w", commit, path, err)
	}
	return out, true, nil
}

// HasConflictMarkers reports whether data holds a line git writes around
// a conflict: "<<<<<<< ", "=======" alone, or ">>>>>>> " (also the
// "|||||||" of diff3), each at the start of a line.
func HasConflictMarkers(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if ConflictMarker(string(line)) {
			return true
		}
	}
	return false
}

// ConflictMarker reports whether line is a conflict marker line.
func ConflictMarker(line string) bool {
	switch {
	case line == "=======":
		return true
	case len(line) >= 7 && (line[:7] == "<<<<<<<" || line[:7] == ">>>>>>>" || line[:7] == "|||||||"):
		return len(line) == 7 || line[7] == ' '
	}
	return false
}
