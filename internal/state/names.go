package state

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

var nameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// ValidateName checks a user-given worktree name: it becomes a folder, part
// of a tmux session name and a state key, so it is kept to a safe alphabet.
func ValidateName(name string) error {
	if len(name) > 64 || !nameRe().MatchString(name) || strings.HasSuffix(name, ".lock") || strings.Contains(name, "..") {
		return fmt.Errorf("invalid name %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", name)
	}
	if ReservedName(name) {
		return fmt.Errorf("invalid name %q: 'owt status %s' would show the command's help; pick another", name, name)
	}
	if name == "all" {
		return fmt.Errorf("invalid name %q: agents send to every peer with it (owt mcp's send_message); pick another", name)
	}
	return nil
}

// ReservedName reports whether commands would read name, given as their
// first argument, as a request for help (the CLI library's "help" and "h").
func ReservedName(name string) bool { return name == "help" || name == "h" }

// WorkerName is the record name of a swarm worker: its host worktree's
// name and its role, "HOST/ROLE". The '/' ValidateName forbids is what
// tells a worker's record from a worktree's.
func WorkerName(host, role string) string { return host + "/" + role }

// ValidateWorkerName checks a swarm worker's name: a valid worktree name,
// '/', and a role of the same alphabet.
func ValidateWorkerName(name string) error {
	host, role, ok := strings.Cut(name, "/")
	if !ok || ValidateName(host) != nil || !nameRe().MatchString(role) || len(role) > 32 {
		return fmt.Errorf("invalid swarm worker name %q: want HOST/ROLE, both of letters, digits, '.', '_' and '-'", name)
	}
	return nil
}
