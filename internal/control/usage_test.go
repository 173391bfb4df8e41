package control

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/usage"
)

// An agent's row carries its tokens and cost; a run owt paused at its
// token budget is in NEEDS YOU, saying so.
func TestUsageOnRowsAndABudgetPausedRunNeedsYou(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	p := &run.Plan{Tasks: []run.Task{{ID: "a", Task: "A"}, {ID: "b", Task: "B"}}}
	p.Retry.MaxAttempts = 1
	r := run.NewRun("g", "/r", "main", p, now.Add(-time.Hour))
	r.State, r.Why = run.Paused, "budget reached: 1200 tokens of 1000"
	a, _ := r.Task("a")
	a.State, a.Name = run.Running, "g-a"
	in := Input{
		Items: []lifecycle.Item{{Name: "g-a", Repo: "/r", Status: "working", StatusSince: now,
			Usage: &usage.Summary{TotalTokens: 12_345, CostUSD: 0.42}}},
		Runs: []*run.Run{r},
	}
	b := Build(in, now)
	needs := b.In(NeedsYou)
	require.Len(t, needs, 1)
	require.Equal(t, "g", needs[0].Run)
	require.Equal(t, "budget reached: 1200 tokens of 1000", needs[0].Why)
	require.False(t, needs[0].IsTask())
	require.False(t, needs[0].IsAgent())
	flight := b.In(InFlight)
	require.Len(t, flight, 1)
	require.Equal(t, "12.3k tok $0.42", flight[0].Usage)
}

// An agent's row carries its usage windows where its tool reports them,
// marked when one is at 80% or more; a window past its reset is left out.
func TestRowsCarryTheUsageWindows(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	in := Input{Items: []lifecycle.Item{
		{Name: "a", Repo: "/r", Status: "working", StatusSince: now, Usage: &usage.Summary{TotalTokens: 100, Limits: usage.Limits{
			{Window: usage.Window5h, UsedPercent: 82.5, ResetsAt: now.Add(time.Hour)},
			{Window: usage.WindowWeekly, UsedPercent: 41, ResetsAt: now.Add(72 * time.Hour)},
		}}},
		{Name: "b", Repo: "/r", Status: "working", StatusSince: now, Usage: &usage.Summary{Limits: usage.Limits{
			{Window: usage.Window5h, UsedPercent: 95, ResetsAt: now.Add(-time.Minute)},
			{Window: usage.WindowWeekly, UsedPercent: 12, ResetsAt: now.Add(72 * time.Hour)},
		}}},
	}}
	rows := Build(in, now).In(InFlight)
	require.Len(t, rows, 2)
	require.Equal(t, "5h 82% wk 41%", rows[0].Limits)
	require.True(t, rows[0].LimitsHigh)
	require.Equal(t, "wk 12%", rows[1].Limits)
	require.False(t, rows[1].LimitsHigh)
	require.Empty(t, rows[1].Usage, "no tokens: no token figure")
}
