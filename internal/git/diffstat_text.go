package git

import (
	"fmt"
	"strconv"
	"strings"
)

// DiffStatText is `git diff --stat` of the worktree at dir against the
// merge base of base and HEAD (the same comparison as Diff), at most width
// columns wide, for people to read (the switch popup's preview).
func DiffStatText(dir, base string, width int) (string, error) {
	mb, err := runLine(dir, "merge-base", "--end-of-options", base, "HEAD")
	if err != nil {
		return "", fmt.Errorf("git merge-base %s HEAD in %s: %w", base, dir, err)
	}
	if width < 20 {
		width = 20
	}
	out, err := run(dir, "diff", "--stat="+strconv.Itoa(width), "--no-ext-diff", "--no-color", mb, "--")
	if err != nil {
		return "", fmt.Errorf("git diff --stat %s in %s: %w", mb, dir, err)
	}
	return strings.TrimRight(string(out), "\n"), nil
}
