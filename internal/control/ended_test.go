package control

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
)

// Agents whose task ended (landed, skipped, cancelled) and agents that
// exited with nothing to ship are not in flight: they are ENDED.
func TestEndedTasksAndExitedAgentsAreNotInFlight(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	p := &run.Plan{Tasks: []run.Task{{ID: "a", Task: "A"}, {ID: "b", Task: "B"}, {ID: "c", Task: "C"}}}
	p.Retry.MaxAttempts = 3
	r := run.NewRun("g", "/r", "main", p, now)
	for i, st := range []run.TaskState{run.Landed, run.Skipped, run.Cancelled} {
		t := r.Tasks[i]
		t.State, t.Name = st, "g-"+t.ID
	}
	code := 1
	item := func(name, status string) lifecycle.Item {
		return lifecycle.Item{Name: name, Repo: "/r", Status: status, StatusSince: now}
	}
	gone := item("gone", "exited")
	gone.ExitCode = &code
	b := Build(Input{Items: []lifecycle.Item{item("g-a", "idle"), item("g-b", "working"), item("g-c", "idle"),
		gone, item("busy", "working"), item("idler", "idle")}, Runs: []*run.Run{r}}, now)
	var inFlight, ended []string
	for _, row := range b.In(InFlight) {
		inFlight = append(inFlight, row.Name)
	}
	for _, row := range b.Rows {
		if row.Section.String() == "ENDED" {
			ended = append(ended, row.Name+": "+row.Why)
		}
	}
	require.Equal(t, []string{"busy", "idler"}, inFlight)
	require.ElementsMatch(t, []string{"g-a: landed", "g-b: skipped", "g-c: cancelled", "gone: exited (code 1), no changes"}, ended)
}

// Right after a retry the old agent has exited and the new one is not
// up yet: the task is in flight (starting, or waiting for its retry),
// not ENDED with "exited, no changes".
func TestARetriedTaskIsInFlightNotEnded(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	p := &run.Plan{Tasks: []run.Task{{ID: "a", Task: "A"}, {ID: "b", Task: "B"}}}
	p.Retry.MaxAttempts = 3
	r := run.NewRun("g", "/r", "main", p, now)
	for i, st := range []run.TaskState{run.Starting, run.Backoff} {
		t := r.Tasks[i]
		t.State, t.Name, t.Attempt = st, "g-"+t.ID, 2
	}
	item := func(name string) lifecycle.Item {
		return lifecycle.Item{Name: name, Repo: "/r", Status: "exited", StatusSince: now}
	}
	b := Build(Input{Items: []lifecycle.Item{item("g-a"), item("g-b")}, Runs: []*run.Run{r}}, now)
	var inFlight []string
	for _, row := range b.In(InFlight) {
		inFlight = append(inFlight, row.Name+": "+row.Why)
	}
	require.Equal(t, []string{"g-a: attempt 2 starting", "g-b: retry pending"}, inFlight)
}
