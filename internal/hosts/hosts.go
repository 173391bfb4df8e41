// Package hosts is owt on other machines: the hosts of the user's config
// ([hosts.NAME]), what each one has (tmux, git, owt), putting owt there,
// and running the same owt there over the host's one shared ssh
// connection — creating an agent, listing agents.
//
// Its rules: every remote command is a fixed owt (or sh) command line;
// what the user typed (a task, a name, a tool) travels as JSON on the
// command's stdin, never on the line (package ssh). A base commit reaches
// the host by git push to a ref of owt's own (refs/owt/base/…), never
// forced, never into a branch. Every call takes a context.
package hosts

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/ssh"
)

// Host is one configured machine.
type Host struct {
	Name   string
	Config config.Host
	SSH    *ssh.Client
	// BaseBehind, after NewAgent, says that the base branch on the host
	// could not be brought to the base commit ("" when it was).
	BaseBehind string
}

// ErrUnknown is a host name the config does not have.
var ErrUnknown = errors.New("no such host")

// Open is the host called name in cfg.
func Open(cfg config.Config, name string) (*Host, error) {
	hc, ok := cfg.Hosts[name]
	if !ok {
		known := Names(cfg)
		msg := "none are configured (owt host add NAME [user@]host)"
		if len(known) > 0 {
			msg = "known: " + strings.Join(known, ", ")
		}
		return nil, fmt.Errorf("%w %q: %s", ErrUnknown, name, msg)
	}
	return New(name, hc)
}

// New is the host name at hc, not necessarily in the config yet (owt host
// add checks a host before it writes it).
func New(name string, hc config.Host) (*Host, error) {
	addr, err := ssh.ParseAddress(hc.Address)
	if err != nil {
		return nil, fmt.Errorf("host %s: %w", name, err)
	}
	return &Host{Name: name, Config: hc, SSH: ssh.New(addr)}, nil
}

// Names are the configured hosts' names, sorted.
func Names(cfg config.Config) []string {
	names := make([]string, 0, len(cfg.Hosts))
	for n := range cfg.Hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// All are the configured hosts, by name.
func All(cfg config.Config) ([]*Host, error) {
	var out []*Host
	for _, n := range Names(cfg) {
		h, err := Open(cfg, n)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// Clone is the host's clone of the local repository at root
// ([hosts.NAME] repos, else one found under its search directories
// before: FindClone), and whether it has one.
func (h *Host) Clone(root string) (string, bool) {
	if p, ok := h.Config.Repos[root]; ok {
		return p, true
	}
	return h.found(root)
}

// Serving are the hosts with a clone of the repository at root.
func Serving(cfg config.Config, root string) ([]*Host, error) {
	all, err := All(cfg)
	if err != nil {
		return nil, err
	}
	var out []*Host
	for _, h := range all {
		if _, ok := h.Clone(root); ok {
			out = append(out, h)
		}
	}
	return out, nil
}
