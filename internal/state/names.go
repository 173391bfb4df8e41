package state

import (
	"fmt"
	"regexp"
	"strings"
)

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ValidateName checks a user-given worktree name: it becomes a folder, part
// of a tmux session name and a state key, so it is kept to a safe alphabet.
func ValidateName(name string) error {
	if len(name) > 64 || !nameRe.MatchString(name) || strings.HasSuffix(name, ".lock") || strings.Contains(name, "..") {
		return fmt.Errorf("invalid name %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", name)
	}
	if ReservedName(name) {
		return fmt.Errorf("invalid name %q: 'owt status %s' would show the command's help; pick another", name, name)
	}
	return nil
}

// ReservedName reports whether commands would read name, given as their
// first argument, as a request for help (the CLI library's "help" and "h").
func ReservedName(name string) bool { return name == "help" || name == "h" }
