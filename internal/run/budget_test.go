package run

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestARunPausesOnceAtItsTokenBudget(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	p := &Plan{Tasks: []Task{{ID: "a", Task: "A"}}, BudgetTokens: 1000}
	r := NewRun("g", "/r", "main", p, now)
	require.Empty(t, r.PauseForBudget(999, now), "under the budget")
	require.Equal(t, Active, r.State)

	evs := r.PauseForBudget(1200, now)
	require.Len(t, evs, 1)
	require.Equal(t, Paused, r.State)
	require.Equal(t, "budget reached: 1200 tokens of 1000", r.Why)
	require.Equal(t, "paused", evs[0].Event)

	_, changed, err := r.SetState(Active, now) // owt run resume
	require.NoError(t, err)
	require.True(t, changed)
	require.Empty(t, r.PauseForBudget(5000, now), "a resumed run goes on past its budget")
	require.Equal(t, Active, r.State)

	r2 := NewRun("h", "/r", "main", &Plan{Tasks: p.Tasks}, now)
	require.Empty(t, r2.PauseForBudget(1<<40, now), "no budget, no pause")
}
