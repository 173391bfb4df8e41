package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// AgentHost finds the host of the agent called ref: NAME@HOST, or a NAME
// with no agent here that one host serving this repository has. routed
// says the agent is a host's (err then says why it cannot be reached);
// when it is false the command goes on here. name is ref without @HOST,
// root this repository's root.
func AgentHost(ctx context.Context, open func() (*workspace.Workspace, error), ref string) (h *hosts.Host, name, root string, routed bool, err error) {
	name, hostName, named := strings.Cut(ref, "@")
	// The user's file alone says whether there are hosts (no git call):
	// a command about a local agent pays one small read for this.
	if !named {
		if user, err := config.Load(""); err != nil || len(user.Hosts) == 0 {
			return nil, name, "", false, nil
		}
	}
	w, err := open()
	if err != nil {
		return nil, name, "", named, err
	}
	cfg := w.Config
	root = w.Repo.Root
	if named {
		if h, err = hosts.Open(cfg, hostName); err != nil {
			return nil, name, root, true, UsageError{Msg: fmt.Sprintf("%s: %v", ref, err)}
		}
		if _, ok := h.Clone(root); !ok {
			return nil, name, root, true, UsageError{Msg: fmt.Sprintf("%s: host %s has no clone of %s ([hosts.%s] repos)", ref, hostName, root, hostName)}
		}
		return h, name, root, true, nil
	}
	if _, err := w.Get(name); !errors.Is(err, state.ErrUnknownName) {
		return nil, name, root, false, nil // an agent here (or a failure the local command reports)
	}
	h, err = hostHaving(ctx, cfg, root, name)
	if h == nil && err == nil {
		return nil, name, root, false, nil
	}
	return h, name, root, true, err
}

// hostHaving is the one host serving the repository at root that has an
// agent called name: nil when none has; an error when several have (the
// user says NAME@HOST) or when a host could not be asked and none had it.
func hostHaving(ctx context.Context, cfg config.Config, root, name string) (*hosts.Host, error) {
	serving, err := hosts.Serving(cfg, root)
	if err != nil {
		return nil, err
	}
	var found []*hosts.Host
	var unreachable, lastThere []string
	for _, h := range serving {
		clone, _ := h.Clone(root)
		items, err := h.Agents(ctx, clone)
		if err != nil {
			unreachable = append(unreachable, h.Name)
			for _, it := range items { // its last list, when it gave one
				if it.Name == name {
					lastThere = append(lastThere, h.Name)
				}
			}
			continue
		}
		for _, it := range items {
			if it.Name == name {
				found = append(found, h)
				break
			}
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		names := make([]string, len(found))
		for i, h := range found {
			names[i] = name + "@" + h.Name
		}
		return nil, Usagef("%s is an agent on several hosts: say which (%s)", name, strings.Join(names, ", "))
	case len(lastThere) > 0:
		// Known there when it last answered: out of reach, not unknown.
		return nil, fmt.Errorf("%s was last seen on host %s, which is unreachable now: nothing was done", name, strings.Join(lastThere, ", "))
	case len(unreachable) > 0:
		// Unknown here (exit 3, as with every host up): said with what
		// could not be asked, and nothing done.
		return nil, fmt.Errorf("%w %q here, and host(s) %s could not be asked (unreachable): nothing was done",
			state.ErrUnknownName, name, strings.Join(unreachable, ", "))
	}
	return nil, nil
}
