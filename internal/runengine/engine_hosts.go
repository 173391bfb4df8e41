package runengine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/runplan"
	"github.com/owt-tmux/owt/internal/state"
)

// Tasks placed on hosts: a task whose plan sets host or labels (or whose
// [run] does) starts through the same remote create as owt new --host
// (hosts.NewAgent: the start commit pushed to the host, the host's owt
// makes the worktree, session and agent in its clone). It holds one of
// the run's max_concurrent slots like any task, and a host running its
// max_agents takes no more: the task waits (in backoff, no attempt
// spent) for room there.
//
// What the engine does not do yet for such a task: judge it done (its
// commits and checks are on the host), land it, retry it there. Once its
// agent stops working (idle, waiting, exited), the task needs the user,
// saying so and how to bring the work home; never done, never landed.

// remoteStartTimeout bounds starting one task on a host.
const remoteStartTimeout = 10 * time.Minute

// hostFullRetry is how long a task whose hosts are all full waits before
// it is tried again.
const hostFullRetry = 30 * time.Second

// remoteGoneAfter is how long after a remote task took its state a line
// of its host's stream must be for its agent's absence to count: a line
// in flight when the agent was made may not list it yet.
const remoteGoneAfter = 2 * time.Second

// remoteStart is a task started on a host: the agent's record as far as
// this machine knows it, and where.
type remoteStart struct {
	rec  *state.Record
	host string
}

// createOnHost starts task pt of run r on a host its placement allows,
// from the start point sp: the first of them (by name) with room.
func (e *Engine) createOnHost(r *run.Run, pt *runplan.Task, sp startPoint, task string) (remoteStart, error) {
	name, labels := r.Plan.PlaceOf(pt)
	cfg, err := config.Load(r.Repo)
	if err != nil {
		return remoteStart{}, fmt.Errorf("config: %w", err)
	}
	candidates, err := hosts.Placed(cfg, r.Repo, name, labels)
	if err != nil {
		return remoteStart{}, err
	}
	repo, err := git.FindRepo(r.Repo)
	if err != nil {
		return remoteStart{}, fmt.Errorf("repository %s: %w", r.Repo, err)
	}
	start := sp.Commit
	if start == "" {
		if start, err = repo.ResolveCommit(git.BranchRef(sp.Base)); err != nil {
			return remoteStart{}, fmt.Errorf("base %s: %w", sp.Base, err)
		}
	}
	var full []string
	for _, h := range candidates {
		ctx, cancel := context.WithTimeout(context.Background(), remoteStartTimeout)
		item, err := h.NewAgent(ctx, repo, hosts.NewSpec{
			Task: task, Name: r.Name + "-" + pt.ID, Base: sp.Base, StartAt: start,
			Tool: r.Plan.ToolOf(pt), Template: pt.Template,
		})
		cancel()
		if errors.Is(err, hosts.ErrFull) {
			full = append(full, h.Name)
			continue
		}
		if err != nil {
			return remoteStart{}, fmt.Errorf("start on host %s: %w", h.Name, err)
		}
		rec := &state.Record{Name: item.Name, Branch: item.Branch, Base: sp.Base, BaseCommit: start, Repo: r.Repo}
		return remoteStart{rec: rec, host: h.Name}, nil
	}
	return remoteStart{}, &run.HostsFullError{Hosts: full, Retry: hostFullRetry}
}

// judgeRemote is the verdict on a task whose agent runs on a host, from
// what the monitor's stream of that host last said (its status file): a
// working agent keeps the task running; one that stopped working needs
// the user, who judges and brings the work home. An agent the stream does
// not tell of yet (or a host out of reach) leaves the task as it is.
func judgeRemote(t *run.TaskRun, statuses map[string]state.HostStatus) (run.Verdict, bool) {
	hs, ok := statuses[t.Host]
	if !ok {
		return run.Verdict{}, false
	}
	var ag *state.RemoteAgent
	for i := range hs.Agents {
		if hs.Agents[i].Name == t.Name && (t.Branch == "" || hs.Agents[i].Branch == "" || hs.Agents[i].Branch == t.Branch) {
			ag = &hs.Agents[i]
		}
	}
	if ag == nil {
		// Each line of the stream lists every agent there: one written
		// well after the task took its state (its agent made by then)
		// that lacks it says it is gone from the host.
		if hs.Reachable && hs.At.After(t.Since.Add(remoteGoneAfter)) {
			at := t.Name + "@" + t.Host
			return run.Verdict{Action: run.AskUser, Why: fmt.Sprintf(
				"its agent %s is gone from host %s (deleted there?); owt does not judge or land a task on a host yet: "+
					"bring back what it did yourself, then owt run skip the task", at, t.Host)}, true
		}
		return run.Verdict{}, false
	}
	switch ag.Status {
	case state.Working, state.Starting:
		return run.Verdict{Action: run.KeepWaiting, Why: fmt.Sprintf("%s@%s is working", t.Name, t.Host)}, true
	}
	at := t.Name + "@" + t.Host
	return run.Verdict{Action: run.AskUser, Why: fmt.Sprintf(
		"its agent runs on host %s and is %s there; owt does not judge or land a task on a host yet: "+
			"look at its work (owt diff %s, owt status %s), bring it home (owt merge %s), then owt run skip the task",
		t.Host, ag.Status, at, at, at)}, true
}

// hostStatuses are the followed hosts' last status, by name.
func hostStatuses() map[string]state.HostStatus {
	out := map[string]state.HostStatus{}
	for _, hs := range state.HostStatuses() {
		out[hs.Host] = hs
	}
	return out
}
