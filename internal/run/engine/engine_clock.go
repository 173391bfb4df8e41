package engine

import (
	"time"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
)

// userOnPane reports whether the user's client is on pane: then owt's
// clock for the agent stops. Until the engine is told (UserOnPane), never.
func (e *Engine) userOnPane(pane string) bool {
	return e.UserOnPane != nil && pane != "" && e.UserOnPane(pane)
}

func (e *Engine) paneActivity(pane string) time.Time {
	if e.PaneActivity == nil || pane == "" {
		return time.Time{}
	}
	return e.PaneActivity(pane)
}

// pace runs or holds each running task's active clock and fails the
// attempts that timed out or stalled. The run is written only when
// something changed.
func (e *Engine) pace(name string, now time.Time) error {
	r, err := e.Store.Load(name)
	if err != nil {
		return err
	}
	paces := e.paces(r)
	if len(paces) == 0 {
		return nil
	}
	jitter := e.jitter()
	if len(r.PaceAll(paces, jitter, now)) == 0 {
		return nil // a dry run on the copy just read: nothing to write
	}
	return e.Store.Update(name, func(cur *run.Run) ([]run.Event, error) {
		return cur.PaceAll(paces, jitter, now), nil
	})
}

// paces are the agents of the tasks whose clock may move, by task id.
func (e *Engine) paces(r *run.Run) map[string]run.AgentPace {
	out := map[string]run.AgentPace{}
	var recs map[string]*state.Record
	var statuses map[string]state.HostStatus
	for _, t := range r.Tasks {
		if (t.State != run.Running && t.State != run.NeedsYou) || run.OutOfTime(t) {
			continue
		}
		if t.Host != "" {
			if statuses == nil {
				statuses = hostStatuses()
			}
			if p, ok := remotePace(t, statuses); ok {
				out[t.ID] = p
			} else if hostRemoved(statuses, r.Repo, t.Host) {
				out[t.ID] = run.AgentPace{Removed: t.Host}
			}
			continue
		}
		if recs == nil {
			f, err := state.ForRepo(r.Repo).Peek()
			if err != nil {
				e.logf(r.Repo, "", "run %s: read worktree state: %v", r.Name, err)
				return nil
			}
			recs = f.Records
		}
		rec := recs[t.Name]
		if rec == nil {
			continue
		}
		out[t.ID] = run.AgentPace{
			Status:       rec.Status,
			UserOnPane:   e.userOnPane(rec.Pane),
			LastActivity: run.LatestOf(rec.EventAt, rec.StatusSince, e.paneActivity(rec.Pane)),
		}
	}
	return out
}

// remotePace is the pace of task t's agent on a host, from the host's
// stream: held while the host is out of reach (its agent's last status
// says nothing of now); unknown until the stream told of the host.
func remotePace(t *run.TaskRun, statuses map[string]state.HostStatus) (run.AgentPace, bool) {
	hs, ok := statuses[t.Host]
	if !ok {
		return run.AgentPace{}, false
	}
	if !hs.Reachable {
		return run.AgentPace{Unreachable: t.Host}, true
	}
	for _, a := range hs.Agents {
		if isTasksAgent(t, a) {
			return run.AgentPace{Status: a.Status, LastActivity: run.LatestOf(a.EventAt, a.Since)}, true
		}
	}
	return run.AgentPace{}, false
}
