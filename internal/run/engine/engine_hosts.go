package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Tasks placed on hosts: a task whose plan sets host or labels (or whose
// [run] does) starts through the same remote create as owt new --host
// (hosts.NewAgent: the start commit pushed to the host, the host's owt
// makes the worktree, session and agent in its clone). It holds one of
// the run's max_concurrent slots like any task, and a host running its
// max_agents takes no more: the task waits (in backoff, no attempt
// spent) for room there.
//
// It is judged on the same evidence as a local task, read where its
// worktree is (hosts.Evidence: the host's owt reads its record and git),
// and by the same judge; it lands through the same merge once its branch
// came home (landRemote), and its agent is then deleted on its host. A
// host out of reach changes nothing: its tasks' clocks stop, nothing is
// failed for it, and they go on when it is back. Every ssh step runs off
// the tick (engine_remote.go); its checks run in its worktree there
// (hosts.Checks). What is not done for it yet: the AI review (review =
// true): such a task needs the user once its turn is judged over.

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
	rec *state.Record
	at  placedAt
}

// placedAt is where a task's agent was made: on host Host (""
// for here), in its repository Repo there (the host's path: its status
// stream lists the agents of every repository there).
type placedAt struct {
	Host, Repo string
}

// createOnHost starts task pt of run r on a host its placement allows,
// from the start point sp, as the agent called agent: the first of them
// (by name) with room. When a host refuses because an agent called agent
// is there already (a start whose answer was lost made it), that agent
// is adopted when it is this task's (the same task text and base, made
// since the run was: not a leftover of an earlier run of that name), else
// the agent is called clash ("": no other name).
func (e *Engine) createOnHost(r *run.Run, pt *run.Task, sp startPoint, agent, task, clash string) (remoteStart, error) {
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
		spec := hosts.NewSpec{
			Task: task, Name: agent, Base: sp.Base, StartAt: start,
			Tool: r.Plan.ToolOf(pt), Template: pt.Template,
		}
		item, err := e.newAgent(h, repo, spec)
		if err != nil && !errors.Is(err, hosts.ErrFull) {
			if have, ok := agentThere(h, repo, agent); ok {
				switch {
				case isOwnAgent(have, task, sp.Base, r.CreatedAt):
					item, err = have, nil // this task's: adopted
					e.logf(r.Repo, "", "run %s: task %s: %s@%s was made by an earlier start: adopted", r.Name, pt.ID, agent, h.Name)
				case clash != "":
					spec.Name = clash
					item, err = e.newAgent(h, repo, spec)
				}
			}
		}
		if errors.Is(err, hosts.ErrFull) {
			full = append(full, h.Name)
			continue
		}
		if err != nil {
			return remoteStart{}, fmt.Errorf("start on host %s: %w", h.Name, err)
		}
		rec := &state.Record{Name: item.Name, Branch: item.Branch, Base: sp.Base, BaseCommit: start, Repo: r.Repo}
		return remoteStart{rec: rec, at: placedAt{Host: h.Name, Repo: item.Repo}}, nil
	}
	return remoteStart{}, &run.HostsFullError{Hosts: full, Retry: hostFullRetry}
}

// hostClockSlack is how far a host's clock may be behind this one's when
// the time it made an agent is compared with a run's.
const hostClockSlack = 5 * time.Minute

// isOwnAgent reports whether have, an agent found on a host under the
// name a task's start asked for, is that task's own, made by an earlier
// start of this run whose answer was lost: the same task text and base,
// made since the run was (a host's clock may be behind by hostClockSlack),
// not a leftover of an earlier run of the same name.
func isOwnAgent(have lifecycle.Item, task, base string, runCreated time.Time) bool {
	return have.Task.Equal(untrusted.From(task)) && have.Base == base && !have.CreatedAt.Before(runCreated.Add(-hostClockSlack))
}

// agentThere is the agent called name in h's clone of repo, as the host
// says now.
func agentThere(h *hosts.Host, repo git.Repo, name string) (lifecycle.Item, bool) {
	clone, ok := h.Clone(repo.Root)
	if !ok {
		return lifecycle.Item{}, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteStepTimeout)
	defer cancel()
	items, err := h.FreshAgents(ctx, clone)
	if err != nil {
		return lifecycle.Item{}, false
	}
	for _, it := range items {
		if it.Name == name {
			return it, true
		}
	}
	return lifecycle.Item{}, false
}

// newAgent starts an agent on host h, one start at a time per host:
// starts run in the background (startRemote), and a host's max_agents is
// checked there before each start, so two at once could both see room.
func (e *Engine) newAgent(h *hosts.Host, repo git.Repo, spec hosts.NewSpec) (lifecycle.Item, error) {
	mu := e.remote.hostLock(h.Name)
	mu.Lock()
	defer mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), remoteStartTimeout)
	defer cancel()
	return h.NewAgent(ctx, repo, spec)
}

// judgeRemote is the verdict on task t, whose agent runs on a host, at
// now. The monitor's stream of that host says whether the agent works (no
// ssh call then); once its turn is over, its evidence, read there in the
// background, is judged as a local task's is. Not known (false): a host
// not followed yet or out of reach, an agent the stream does not tell of
// yet, evidence not read yet since its status changed.
func (e *Engine) judgeRemote(r *run.Run, t *run.TaskRun, statuses map[string]state.HostStatus, now time.Time) (run.Verdict, bool) {
	key := r.Name + "/" + t.ID
	if hostRemoved(statuses, r.Repo, t.Host) {
		return removedHostVerdict(t), true
	}
	ag, v, known := streamVerdict(t, statuses)
	if ag == nil || v.Action == run.KeepWaiting {
		e.remote.dropReading(key)
		return v, known
	}
	rd, ok := e.remote.reading(key)
	current := ok && rd.err == nil && rd.ev.Status == ag.Status && rd.ev.Since.Equal(ag.Since) && rd.ev.Name == t.Name
	every := evidenceEvery
	if t.State == run.NeedsYou {
		every = needsYouEvidenceEvery // the user's to act: a change there is rarer
	}
	if !current || now.Sub(rd.at) >= every {
		e.readEvidence(r, t)
	}
	if ok && !errors.Is(rd.err, ssh.ErrUnreachable) {
		// Said once per change (sayOnce runs in the tick only).
		e.sayOnce(fmt.Sprintf("run %s: task %s: read its evidence on %s", r.Name, t.ID, t.Host), rd.err)
	}
	if !current {
		return run.Verdict{}, false
	}
	pt, ok := r.Plan.TaskByID(t.ID)
	if !ok {
		return run.Verdict{}, false
	}
	v = run.Judge(observation(rd.ev, now), run.CriteriaOf(&r.Plan, pt), t.Memo)
	at := t.Name + "@" + t.Host
	switch v.Action {
	case run.RunChecks:
		if r.Plan.ReviewOf(pt) {
			v = run.Verdict{Action: run.AskUser, Evidence: v.Evidence, Why: fmt.Sprintf(
				"its turn is over with commits on %s, but the AI review of a task on a host is not built yet: "+
					"bring it home (owt merge %s), review it, then owt run skip the task", t.Host, at)}
			break
		}
		e.startRemoteChecks(r, *t, r.Plan.ChecksOf(pt), v.Tree)
		v = run.Verdict{Action: run.KeepWaiting, Why: "checks run on " + run.Short(v.Tree) + " on host " + t.Host, Evidence: v.Evidence}
	case run.SendMessage:
		if v.Message != nil {
			e.sendRemote(r, t, *v.Message)
		}
		v = run.Verdict{Action: run.KeepWaiting, Why: v.Why + ": telling " + at, Evidence: v.Evidence}
	}
	return v, true
}

// hostRemoved reports whether host is no longer configured for the
// repository at repo (owt host remove): no stream follows it any more
// (none in statuses), and the config does not name it. A config that
// does not read says nothing.
func hostRemoved(statuses map[string]state.HostStatus, repo, host string) bool {
	if _, followed := statuses[host]; followed {
		return false
	}
	cfg, err := config.Load(repo)
	if err != nil {
		return false
	}
	_, ok := cfg.Hosts[host]
	return !ok
}

// removedHostVerdict is the verdict on task t whose host is no longer
// configured: the user's, who removed it.
func removedHostVerdict(t *run.TaskRun) run.Verdict {
	at := t.Name + "@" + t.Host
	return run.Verdict{Action: run.AskUser, Why: fmt.Sprintf(
		"its host %s is no longer configured (owt host remove), so %s is not followed: add the host again (owt host add %s …), or owt run skip or owt run cancel the task", t.Host, at, t.Host)}
}

// streamVerdict is what the host's stream alone says of task t: its
// agent there (nil when not listed), and a verdict when that settles it —
// working (keep waiting), or gone from a host that answers (the user).
func streamVerdict(t *run.TaskRun, statuses map[string]state.HostStatus) (*state.RemoteAgent, run.Verdict, bool) {
	hs, ok := statuses[t.Host]
	if !ok || !hs.Reachable {
		return nil, run.Verdict{}, false // its last word says nothing of now: the clock stops (paces)
	}
	var ag *state.RemoteAgent
	for i := range hs.Agents {
		if isTasksAgent(t, hs.Agents[i]) {
			ag = &hs.Agents[i]
		}
	}
	if ag == nil {
		// Each line of the stream lists every agent there: one written
		// well after the task took its state (its agent made by then)
		// that lacks it says it is gone from the host.
		if hs.At.After(t.Since.Add(remoteGoneAfter)) {
			at := t.Name + "@" + t.Host
			return nil, run.Verdict{Action: run.AskUser, Why: fmt.Sprintf(
				"its agent %s is gone from host %s (deleted there?): bring back what it did yourself (if anything), then owt run skip or owt run retry the task", at, t.Host)}, true
		}
		return nil, run.Verdict{}, false
	}
	switch ag.Status {
	case state.Working, state.Starting:
		return ag, run.Verdict{Action: run.KeepWaiting, Why: fmt.Sprintf("%s@%s is working", t.Name, t.Host)}, true
	}
	return ag, run.Verdict{}, false
}

// isTasksAgent reports whether a, an agent of a host's stream (which
// lists every repository there), is remote task t's: its name, branch and
// repository there. A task recorded before its repository was
// (HostRepo "") matches by name and branch.
func isTasksAgent(t *run.TaskRun, a state.RemoteAgent) bool {
	if a.Name != t.Name {
		return false
	}
	if t.Branch != "" && a.Branch != "" && a.Branch != t.Branch {
		return false
	}
	return t.HostRepo == "" || a.Repo == "" || strings.TrimRight(a.Repo, "/") == strings.TrimRight(t.HostRepo, "/")
}

// hostStatuses are the followed hosts' last status, by name.
func hostStatuses() map[string]state.HostStatus {
	out := map[string]state.HostStatus{}
	for _, hs := range state.HostStatuses() {
		out[hs.Host] = hs
	}
	return out
}
