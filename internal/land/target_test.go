package land

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

// A target checked out in the worktree of an agent mid-turn is refused,
// by its record; idle, or a shell with no agent, it is not.
func TestCheckTargetRefusesABranchABusyAgentWorksOn(t *testing.T) {
	c, dir, _, _ := raceRepo(t)
	rec := &state.Record{Name: "busy", Path: dir, Status: state.Working}
	records := func() ([]*state.Record, error) { return []*state.Record{rec}, nil }
	err := CheckTarget(c.Git, records, "main")
	var busy *TargetBusyError
	require.True(t, errors.As(err, &busy), "%v", err)
	require.Equal(t, "busy", busy.Agent)
	require.Contains(t, err.Error(), "main is checked out in "+dir+", where the agent busy is working")
	require.NoError(t, CheckTarget(c.Git, records, "feat"), "a branch checked out nowhere")

	rec.Status = state.Idle
	require.NoError(t, CheckTarget(c.Git, records, "main"))
	rec.Status, rec.NoAgent = state.Working, true
	require.NoError(t, CheckTarget(c.Git, records, "main"))
	require.NoError(t, CheckTarget(c.Git, nil, "main"))
}
