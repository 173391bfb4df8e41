package workspace

import (
	"fmt"
	"sort"
	"time"

	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/state"
)

// ShellTool is what a worktree made with --no-agent shows as its tool.
const ShellTool = "shell"

// ToolOf is the tool of r as owt shows it: a shell is not an agent.
func ToolOf(r *state.Record) string {
	if r.NoAgent || r.Tool == "" {
		return ShellTool
	}
	return r.Tool
}

// AllRecords returns the records of every repository owt knows, by repo then age.
func AllRecords() ([]*state.Record, error) {
	stores, err := state.Stores()
	if err != nil {
		return nil, err
	}
	sort.Slice(stores, func(i, j int) bool { return stores[i].Repo < stores[j].Repo })
	var out []*state.Record
	for _, s := range stores {
		f, unread, err := s.PeekReadable()
		if err != nil {
			// Another repo's broken or newer file: skip it here; owt run in
			// that repo reports and recovers it.
			owtlog.Errorf("list", owtlog.Fields{Repo: s.Repo, Event: "list"}, "skip %s: %v", s.Path, err)
			continue
		}
		for _, err := range unread {
			// One agent's corrupt record: the others are listed.
			owtlog.Errorf("list", owtlog.Fields{Repo: s.Repo, Event: "list"}, "skip a record: %v", err)
		}
		out = append(out, f.Sorted()...)
	}
	return out, nil
}

// Age prints a duration the way people say it: 45s, 12m, 3h, 2d.
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}
