package control

import (
	"strings"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
)

// Agents on hosts on the board: what the monitor's stream of each host
// last said (its status file), no ssh call. A remote agent's row has its
// Host; its git figures are not known here, so it is never READY TO SHIP
// from the board, and the verbs that need its worktree are refused for it
// (the popup says which command does it: owt merge NAME@HOST, …).

// remoteItems are the followed hosts' agents: with repo set, those of the
// host's clone of repo (their Repo is repo then, so a run task's row is
// carried by its agent's); with repo "", every one, its Repo the local
// repository whose clone it runs in when the config says, else its path
// on the host.
func remoteItems(repo string, statuses []state.HostStatus) []lifecycle.Item {
	if len(statuses) == 0 {
		return nil
	}
	cfg, err := config.Load("")
	if err != nil {
		return nil // the bar and owt host list say what is wrong with it
	}
	var out []lifecycle.Item
	for _, hs := range statuses {
		h, err := hosts.Open(cfg, hs.Host)
		if err != nil {
			continue // no longer configured
		}
		for _, a := range hs.Agents {
			local := localRepoOf(h, repo, a.Repo)
			if repo != "" && local == "" {
				continue
			}
			if local == "" {
				local = a.Repo
			}
			out = append(out, lifecycle.Item{Name: a.Name, Host: hs.Host, Repo: local, Branch: a.Branch,
				Session: a.Session, Tool: a.Tool, Status: string(a.Status), StatusSince: a.Since, CreatedAt: a.Created,
				Live: hs.Reachable, Unreachable: !hs.Reachable})
		}
	}
	return out
}

// localRepoOf is the local repository whose clone on h is remote (the
// path the host reports): repo when given and its clone is that, else
// the first of the host's configured repos that is; "" for none.
func localRepoOf(h *hosts.Host, repo, remote string) string {
	if repo != "" {
		if clone, ok := h.Clone(repo); ok && samePath(clone, remote) {
			return repo
		}
		return ""
	}
	for local, clone := range h.Config.Repos {
		if samePath(clone, remote) {
			return local
		}
	}
	return ""
}

// samePath: the clone as configured (maybe "~/src/app", the host's home)
// is the path the host reports.
func samePath(configured, reported string) bool {
	configured = strings.TrimRight(configured, "/")
	if rest, ok := strings.CutPrefix(configured, "~/"); ok {
		return strings.HasSuffix(reported, "/"+rest)
	}
	return configured == strings.TrimRight(reported, "/")
}

// LocalRepo is the local repository whose clone on h is at remote (the
// path the host reports for an agent's repository), "" for none
// configured ([hosts.NAME] repos).
func LocalRepo(h *hosts.Host, remote string) string { return localRepoOf(h, "", remote) }
