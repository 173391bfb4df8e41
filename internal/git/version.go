package git

import (
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
)

// MinMajor and MinMinor are the oldest git owt works with: 2.38 brought
// merge-tree --write-tree, which predicts a merge's conflicts without
// touching a checkout.
const (
	MinMajor = 2
	MinMinor = 38
)

var versionRe = regexp.MustCompile(`(\d+)\.(\d+)(?:\.(\d+))?`)

// Version is git's version: the text it printed ("2.39.5") and its
// major and minor numbers. exec.ErrNotFound when git is not on PATH.
func Version() (text string, major, minor int, err error) {
	out, err := runLine(".", "--version")
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return "", 0, 0, exec.ErrNotFound
		}
		return "", 0, 0, fmt.Errorf("git --version: %w", err)
	}
	return ParseVersion(out)
}

// ParseVersion reads "git version 2.39.5 (Apple Git-146)" and the like.
func ParseVersion(out string) (text string, major, minor int, err error) {
	m := versionRe.FindStringSubmatch(out)
	if m == nil {
		return "", 0, 0, fmt.Errorf("unrecognised git version %q", out)
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return m[0], major, minor, nil
}
