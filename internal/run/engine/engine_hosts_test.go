package engine

import (
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// The host's stream alone settles a working agent (keep waiting) and one
// gone from a host that answers (the user); an agent that stopped working
// is judged on its evidence (nothing said from the stream); a host out of
// reach says nothing of now.
func TestStreamVerdictOfARemoteTask(t *testing.T) {
	task := &run.TaskRun{ID: "a", Name: "g-a", Branch: "g-a", Host: "box", State: run.Running}
	with := func(st state.Status) map[string]state.HostStatus {
		return map[string]state.HostStatus{"box": {Host: "box", At: time.Now(), Reachable: true,
			Agents: []state.RemoteAgent{{Name: "g-a", Branch: "g-a", Status: st}, {Name: "other", Status: state.Idle}}}}
	}

	_, _, known := streamVerdict(task, map[string]state.HostStatus{})
	require.False(t, known, "a host not followed yet: nothing to say")
	task.Since = time.Now()
	_, _, known = streamVerdict(task, map[string]state.HostStatus{"box": {Host: "box", At: task.Since.Add(time.Second), Reachable: true}})
	require.False(t, known, "an agent the stream does not tell of yet: a line written right after it started")
	ag, _, known := streamVerdict(task, map[string]state.HostStatus{"box": {Host: "box", At: task.Since.Add(time.Minute),
		Agents: []state.RemoteAgent{{Name: "g-a", Status: state.Idle}}}})
	require.False(t, known, "a host out of reach: its last word says nothing of now")
	require.Nil(t, ag)
	_, v, known := streamVerdict(task, map[string]state.HostStatus{"box": {Host: "box", At: task.Since.Add(time.Minute), Reachable: true}})
	require.True(t, known)
	require.Equal(t, run.AskUser, v.Action, "gone from a host that answers")
	require.Contains(t, v.Why, "is gone from host box")

	ag, v, known = streamVerdict(task, with(state.Working))
	require.True(t, known)
	require.NotNil(t, ag)
	require.Equal(t, run.KeepWaiting, v.Action)

	for _, st := range []state.Status{state.Idle, state.Waiting, state.Exited} {
		ag, _, known = streamVerdict(task, with(st))
		require.False(t, known, "%s: judged on its evidence, not the stream", st)
		require.NotNil(t, ag, st)
		require.Equal(t, st, ag.Status)
	}

	other := *task
	other.Branch = "elsewhere"
	ag, _, known = streamVerdict(&other, with(state.Idle))
	require.False(t, known, "another agent of that name (another branch) is not this task's")
	require.Nil(t, ag)
}

// A remote agent's evidence goes to the same judge as a local one's: no
// commits is never done; commits, a clean tree and owt done are.
func TestRemoteEvidenceIsJudgedAsALocalTasks(t *testing.T) {
	now := time.Now()
	ev := hosts.Evidence{Name: "g-a", Status: state.Idle, Since: now.Add(-time.Minute), Done: &state.DoneSignal{}}
	v := run.Judge(observation(ev, now), run.Criteria{Settle: time.Second}, run.Memo{})
	require.Equal(t, run.AskUser, v.Action, "owt done without commits")
	require.Contains(t, v.Why, "no commits")

	ev.Commits, ev.Tree = 1, "abc"
	ev.Uncommitted = []string{"x.txt"}
	v = run.Judge(observation(ev, now), run.Criteria{Settle: time.Second}, run.Memo{})
	require.Equal(t, run.SendMessage, v.Action, "uncommitted work: the agent is asked to commit")

	ev.Uncommitted = nil
	v = run.Judge(observation(ev, now), run.Criteria{Settle: time.Second}, run.Memo{})
	require.Equal(t, run.MarkDone, v.Action)
	require.Equal(t, 1, v.Evidence.Commits)
}

// A remote task's clock stops while its host is out of reach, and runs
// on the stream's word once it is back.
func TestRemotePaceHoldsWhileTheHostIsAway(t *testing.T) {
	task := &run.TaskRun{ID: "a", Name: "g-a", Host: "box", State: run.Running}
	_, ok := remotePace(task, map[string]state.HostStatus{})
	require.False(t, ok)
	p, ok := remotePace(task, map[string]state.HostStatus{"box": {Host: "box", Agents: []state.RemoteAgent{{Name: "g-a", Status: state.Working}}}})
	require.True(t, ok)
	require.Equal(t, "box", p.Unreachable)
	at := time.Now()
	p, ok = remotePace(task, map[string]state.HostStatus{"box": {Host: "box", Reachable: true,
		Agents: []state.RemoteAgent{{Name: "g-a", Status: state.Working, Since: at.Add(-time.Hour), EventAt: at}}}})
	require.True(t, ok)
	require.Empty(t, p.Unreachable)
	require.Equal(t, state.Working, p.Status)
	require.Equal(t, at, p.LastActivity, "its last hook event is its sign of life")
}

// A host's stream lists the agents of every repository there: a task's
// agent plan-api in /src/app is never taken for another repository's
// plan-api (same name and branch) in /src/other, in either order.
func TestRemoteTaskIsMatchedInItsOwnRepositoryOnTheHost(t *testing.T) {
	task := &run.TaskRun{ID: "api", Name: "plan-api", Branch: "plan-api", Host: "box", HostRepo: "/src/app", State: run.Running, Since: time.Now().Add(-time.Hour)}
	mine := state.RemoteAgent{Name: "plan-api", Branch: "plan-api", Repo: "/src/app", Status: state.Idle, Since: time.Now().Add(-time.Minute)}
	theirs := state.RemoteAgent{Name: "plan-api", Branch: "plan-api", Repo: "/src/other", Status: state.Working, Since: time.Now()}
	for _, agents := range [][]state.RemoteAgent{{mine, theirs}, {theirs, mine}} {
		statuses := map[string]state.HostStatus{"box": {Host: "box", At: time.Now(), Reachable: true, Agents: agents}}
		ag, v, known := streamVerdict(task, statuses)
		require.False(t, known, "its own agent is idle: judged on its evidence, not kept waiting on the other's work (%s)", v.Why)
		require.NotNil(t, ag)
		require.Equal(t, "/src/app", ag.Repo)
		p, ok := remotePace(task, statuses)
		require.True(t, ok)
		require.Equal(t, state.Idle, p.Status, "the pace of its own agent, not the other repository's")
	}

	// Alone on the host, the other repository's agent is not the task's:
	// its own is gone.
	statuses := map[string]state.HostStatus{"box": {Host: "box", At: time.Now(), Reachable: true, Agents: []state.RemoteAgent{theirs}}}
	ag, v, known := streamVerdict(task, statuses)
	require.True(t, known)
	require.Nil(t, ag)
	require.Equal(t, run.AskUser, v.Action)
	_, ok := remotePace(task, statuses)
	require.False(t, ok)
}

// An agent found on a host under the name a task's start asked for is
// adopted only when it is that task's: its task text and base, made since
// the run was (within a host clock's slack), not an earlier run's leftover.
func TestOwnAgentOnAHostIsTheTasksOnly(t *testing.T) {
	created := time.Now()
	have := lifecycle.Item{Name: "g-far", Task: untrusted.From("the task"), Base: "main", CreatedAt: created.Add(time.Second)}
	require.True(t, isOwnAgent(have, "the task", "main", created))
	require.True(t, isOwnAgent(lifecycle.Item{Task: have.Task, Base: "main", CreatedAt: created.Add(-time.Minute)}, "the task", "main", created), "a host clock a minute behind")
	require.False(t, isOwnAgent(have, "another task", "main", created))
	require.False(t, isOwnAgent(have, "the task", "dev", created))
	require.False(t, isOwnAgent(lifecycle.Item{Task: have.Task, Base: "main", CreatedAt: created.Add(-time.Hour)}, "the task", "main", created), "an earlier run's leftover")
}

// A task on a host that is no longer configured (owt host remove) needs
// the user, saying why, and its clock holds: no stream follows its agent.
func TestATaskOnARemovedHostNeedsYouAndItsClockHolds(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no [hosts] at all
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	repo := t.TempDir()
	r, task := pacedRun(t, "")
	r.Repo = repo
	task.Host, task.Name, task.State = "box", "r-a", run.Running
	at := func(s int) time.Time { return time.Unix(int64(s), 0) }
	require.Len(t, r.PaceTask(task, run.AgentPace{Status: state.Working, LastActivity: at(0)}, nil, at(0)), 1, "the clock runs")

	e := &Engine{}
	v, known := e.judgeRemote(r, task, hostStatuses(), at(5))
	require.True(t, known)
	require.Equal(t, run.AskUser, v.Action)
	require.Contains(t, v.Why, "its host box is no longer configured")

	p, ok := e.paces(r)[task.ID]
	require.True(t, ok, "a pace that holds its clock")
	evs := r.PaceTask(task, p, nil, at(5))
	require.Len(t, evs, 1)
	require.Contains(t, evs[0].Detail, "held at 5s: its host box is no longer configured")
	require.Equal(t, 5*time.Second, task.Clock.Active(at(3600)))
}
