package hosts

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/config"
)

// Placed are the configured hosts a task placed at host name or
// labels may run on, for the repository at root: the host named, or
// every host with all the labels, by name; each must have a clone of the
// repository (or directories to search for one). None is an error that
// says why: owt run start refuses a plan that places a task so.
func Placed(cfg config.Config, root, name string, labels []string) ([]*Host, error) {
	if name != "" {
		h, err := Open(cfg, name)
		if err != nil {
			return nil, err
		}
		if _, ok := h.Clone(root); !ok && len(h.Config.Search) == 0 {
			return nil, fmt.Errorf("host %s has no clone of %s: add it to [hosts.%s] repos (owt host add … --repo)", name, root, name)
		}
		return []*Host{h}, nil
	}
	all, err := All(cfg)
	if err != nil {
		return nil, err
	}
	var out []*Host
	labelled := 0
	for _, h := range all {
		if !hasLabels(h.Config.Labels, labels) {
			continue
		}
		labelled++
		if _, ok := h.Clone(root); ok || len(h.Config.Search) > 0 {
			out = append(out, h)
		}
	}
	switch {
	case labelled == 0:
		return nil, fmt.Errorf("no configured host has the labels %s (owt host list)", strings.Join(labels, ", "))
	case len(out) == 0:
		return nil, fmt.Errorf("no host with the labels %s has a clone of %s (owt host add … --repo)", strings.Join(labels, ", "), root)
	}
	return out, nil
}

func hasLabels(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
