package worktreecmd

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/workspace"
)

// remoteListTimeout bounds asking the hosts for their agents.
const remoteListTimeout = 15 * time.Second

// remoteItems are the agents on the configured hosts: those of the
// host's clone of the repository at root, or with all, every one there;
// with fresh, each host is asked for figures computed now (owt list
// --fresh there), never its last list.
// A host that does not answer gives its last known list, marked
// unreachable, and one line on stderr.
func remoteItems(ios *cmdutil.IOStreams, cfg config.Config, root string, all, fresh bool) []lifecycle.Item {
	if len(cfg.Hosts) == 0 {
		return nil
	}
	var hs []*hosts.Host
	var err error
	if all {
		hs, err = hosts.All(cfg)
	} else {
		hs, err = hosts.Serving(cfg, root)
	}
	if err != nil {
		fmt.Fprintln(ios.ErrOut, "owt: hosts:", err)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteListTimeout)
	defer cancel()
	lists := make([][]lifecycle.Item, len(hs))
	errs := make([]error, len(hs))
	var wg sync.WaitGroup
	for i, h := range hs {
		dir := ""
		if !all {
			dir, _ = h.Clone(root)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if fresh {
				lists[i], errs[i] = h.FreshAgents(ctx, dir)
			} else {
				lists[i], errs[i] = h.Agents(ctx, dir)
			}
		}()
	}
	wg.Wait()
	var out []lifecycle.Item
	for i, h := range hs {
		if errs[i] != nil {
			fmt.Fprintf(ios.ErrOut, "owt: host %s: %s\n", h.Name, cmdutil.Shown(errs[i].Error()))
		}
		out = append(out, lists[i]...)
	}
	return out
}

// seenAgo is ", seen 5m ago" for an unreachable host's agent.
func seenAgo(at *time.Time, now time.Time) string {
	if at == nil {
		return ""
	}
	return ", seen " + workspace.Age(now.Sub(*at)) + " ago"
}
