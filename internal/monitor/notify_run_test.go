package monitor

import (
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/stretchr/testify/require"
)

// A run's notice of a task whose agent waits at its prompt is dropped
// only where the agent's status notice says it: this server watches the
// agent and [notify] on lists waiting.
func TestRunNoticeOfAWaitingAgentIsDroppedOnlyWhenTheStatusNoticeSaysIt(t *testing.T) {
	rec := &state.Record{Repo: "/repo", Name: "r-a"}
	m := &monitor{alive: map[recKey]sighting{{"/repo", "r-a"}: {at: time.Now()}}}
	waiting := notice{agentWaiting: true}
	both := config.Notify{On: []string{"waiting", "needs_you"}}
	onlyNeeds := config.Notify{On: []string{"needs_you"}}

	require.True(t, m.saidByStatus(rec, waiting, both))
	require.False(t, m.saidByStatus(rec, waiting, onlyNeeds), "waiting not in on: no status notice")
	require.False(t, m.saidByStatus(rec, notice{}, both), "the agent does not wait")
	require.False(t, m.saidByStatus(&state.Record{Repo: "/repo", Name: "other"}, waiting, both), "not an agent this server watches")
}
