package engine

import (
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/stretchr/testify/require"
)

// A task that needs the user is told once per state and why: a new
// problem in the same state (another why) is told again, the same one
// never twice.
func TestANeedsYouTaskIsToldAgainOfANewProblem(t *testing.T) {
	store := run.Store{Dir: t.TempDir()}
	r := childRun(t)
	r.Repo = t.TempDir() // no worktree state: no record
	a, _ := r.Task("a")
	a.State, a.Since, a.Why = run.NeedsYou, time.Unix(50, 0), "the agent asks a question"
	require.NoError(t, store.Create(r))
	var told []string
	e := &Engine{Store: store, Notify: func(_ *state.Record, n run.Notice) { told = append(told, n.Text) }}

	require.NoError(t, e.tellNeeds("r"))
	require.NoError(t, e.tellNeeds("r"))
	require.Len(t, told, 1, "told once: %v", told)

	require.NoError(t, store.Update("r", func(cur *run.Run) ([]run.Event, error) {
		ca, _ := cur.Task("a")
		ca.Why, cur.UpdatedAt = "a predicted conflict with feat/x", time.Now()
		return nil, nil
	}))
	require.NoError(t, e.tellNeeds("r"))
	require.NoError(t, e.tellNeeds("r"))
	require.Len(t, told, 2, "the new problem told once: %v", told)
	require.Contains(t, told[1], "a predicted conflict")
}
