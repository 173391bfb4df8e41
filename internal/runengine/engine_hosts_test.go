package runengine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
)

func TestJudgeRemoteFollowsTheHostsStreamAndNeverCallsItDone(t *testing.T) {
	task := &run.TaskRun{ID: "a", Name: "g-a", Branch: "g-a", Host: "box", State: run.Running}
	with := func(st state.Status) map[string]state.HostStatus {
		return map[string]state.HostStatus{"box": {Host: "box", At: time.Now(), Reachable: true,
			Agents: []state.RemoteAgent{{Name: "g-a", Branch: "g-a", Status: st}, {Name: "other", Status: state.Idle}}}}
	}

	_, known := judgeRemote(task, map[string]state.HostStatus{})
	require.False(t, known, "a host not followed yet: nothing to say")
	task.Since = time.Now()
	_, known = judgeRemote(task, map[string]state.HostStatus{"box": {Host: "box", At: task.Since.Add(time.Second), Reachable: true}})
	require.False(t, known, "an agent the stream does not tell of yet: a line written right after it started")
	_, known = judgeRemote(task, map[string]state.HostStatus{"box": {Host: "box", At: task.Since.Add(time.Minute)}})
	require.False(t, known, "a host out of reach: its last word says nothing of now")
	v, known := judgeRemote(task, map[string]state.HostStatus{"box": {Host: "box", At: task.Since.Add(time.Minute), Reachable: true}})
	require.True(t, known)
	require.Equal(t, run.AskUser, v.Action, "gone from a host that answers")
	require.Contains(t, v.Why, "is gone from host box")

	v, known = judgeRemote(task, with(state.Working))
	require.True(t, known)
	require.Equal(t, run.KeepWaiting, v.Action)

	for _, st := range []state.Status{state.Idle, state.Waiting, state.Exited} {
		v, known = judgeRemote(task, with(st))
		require.True(t, known, st)
		require.Equal(t, run.AskUser, v.Action, st)
		require.Contains(t, v.Why, "does not judge or land a task on a host yet", st)
		require.Contains(t, v.Why, "g-a@box", st)
		require.Contains(t, v.Why, string(st), st)
	}

	other := *task
	other.Branch = "elsewhere"
	_, known = judgeRemote(&other, with(state.Idle))
	require.False(t, known, "another agent of that name (another branch) is not this task's")
}
