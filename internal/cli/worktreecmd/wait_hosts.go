package worktreecmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/workspace"
)

// waitLookEvery is how often owt wait asks the hosts where their agents
// stand (the host's status stream, cached by the monitor, when it is
// fresh; else owt list there).
const waitLookEvery = time.Second

// waitAskTimeout bounds one look at a host.
const waitAskTimeout = 15 * time.Second

// remoteWait is the agents on hosts one owt wait waits on.
type remoteWait struct {
	hosts  []*hosts.Host
	clones map[string]string   // by host: its clone of this repository
	names  map[string][]string // by host: the agents waited on there
}

func (rw *remoteWait) add(h *hosts.Host, clone, name string) {
	if rw.names == nil {
		rw.clones, rw.names = map[string]string{}, map[string][]string{}
	}
	if _, ok := rw.names[h.Name]; !ok {
		rw.hosts = append(rw.hosts, h)
		rw.clones[h.Name] = clone
	}
	rw.names[h.Name] = append(rw.names[h.Name], name)
}

func (rw *remoteWait) empty() bool { return len(rw.hosts) == 0 }

// look is where each agent waited on stands now, as NAME@HOST. An agent
// of a host that does not answer keeps its last known status, marked
// unreachable: neither reached nor over (never "exited" for it).
func (rw *remoteWait) look(u status.WaitUntil) []status.WaitResult {
	var out []status.WaitResult
	for _, h := range rw.hosts {
		ctx, cancel := context.WithTimeout(context.Background(), waitAskTimeout)
		items, err := h.Agents(ctx, rw.clones[h.Name])
		cancel()
		byName := map[string]lifecycle.Item{}
		for _, it := range items {
			byName[it.Name] = it
		}
		for _, n := range rw.names[h.Name] {
			res := status.WaitResult{Name: n + "@" + h.Name, Host: h.Name, Status: "gone"}
			it, ok := byName[n]
			switch {
			case err != nil || it.Unreachable:
				res.Unreachable, res.Status = true, "unknown"
				if ok {
					res.Status, res.Since = it.Status, it.StatusSince
				}
			case !ok:
				res.Never = true // deleted there
			default:
				st := state.Status(it.Status)
				res.Status, res.Since, res.Reached = it.Status, it.StatusSince, u.Reached(st)
				res.Never = !res.Reached && st == state.Exited
			}
			out = append(out, res)
		}
	}
	return out
}

// waitTargets sorts owt wait's names into the agents here and those on
// hosts (NAME@HOST, or a NAME no agent here has and one serving host
// does). With all, every agent of this repository here and on the hosts
// serving it; a host that cannot be asked is said on errOut.
func waitTargets(f *cmdutil.Factory, w *workspace.Workspace, refs []string, all bool, errOut io.Writer) ([]string, *remoteWait, error) {
	rw := &remoteWait{}
	var local []string
	ctx, cancel := context.WithTimeout(context.Background(), waitAskTimeout)
	defer cancel()
	if all {
		recs, err := w.Records()
		if err != nil {
			return nil, nil, err
		}
		for _, r := range recs {
			local = append(local, r.Name)
		}
		serving, err := hosts.Serving(w.Config, w.Repo.Root)
		if err != nil {
			return nil, nil, err
		}
		for _, h := range serving {
			clone, _ := h.Clone(w.Repo.Root)
			items, err := h.Agents(ctx, clone)
			if err != nil {
				fmt.Fprintf(errOut, "owt: host %s unreachable: waiting on the agents last seen there (%d)\n", h.Name, len(items))
			}
			for _, it := range items {
				rw.add(h, clone, it.Name)
			}
		}
		return local, rw, nil
	}
	for _, ref := range refs {
		if !strings.Contains(ref, "@") {
			if _, err := w.Get(ref); !errors.Is(err, state.ErrUnknownName) {
				local = append(local, ref) // here (or a failure Wait reports)
				continue
			}
		}
		h, name, root, routed, err := cmdutil.AgentHost(ctx, f.OpenWorkspace, ref)
		if err != nil {
			return nil, nil, err
		}
		if !routed {
			local = append(local, ref) // no such agent anywhere: Wait says so
			continue
		}
		clone, _ := h.Clone(root)
		rw.add(h, clone, name)
	}
	if rw.empty() {
		return local, rw, nil
	}
	// A name no reachable host has is refused now, as one here is.
	for _, r := range rw.look(status.UntilAny) {
		if r.Status == "gone" && !r.Unreachable {
			name, host, _ := strings.Cut(r.Name, "@")
			return nil, nil, fmt.Errorf("%w %q on %s", state.ErrUnknownName, name, host)
		}
	}
	return local, rw, nil
}

// missedLine says where one agent stands that did not get there.
func missedLine(r status.WaitResult) string {
	if r.Unreachable {
		return fmt.Sprintf("%s is unreachable (host %s; last %s)", r.Name, r.Host, r.Status)
	}
	return fmt.Sprintf("%s is %s", r.Name, r.Status)
}
