package control

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

func TestBuildSortsRowsIntoSections(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	ago := func(m int) time.Time { return now.Add(-time.Duration(m) * time.Minute) }
	item := func(name, status string, since, ahead, dirty int) lifecycle.Item {
		return lifecycle.Item{Name: name, Repo: "/r", Status: status, StatusSince: ago(since), Ahead: ahead, Dirty: dirty}
	}
	p := &run.Plan{Tasks: []run.Task{{ID: "models", Task: "Models"}, {ID: "api", Task: "The API", DependsOn: []string{"models"}}, {ID: "db", Task: "DB"}}}
	p.Retry.MaxAttempts = 3
	r := run.NewRun("g", "/r", "main", p, ago(30))
	models, _ := r.Task("models")
	models.State, models.Name, models.Attempt = run.Running, "g-models", 1
	db, _ := r.Task("db")
	db.State, db.NextStart = run.Backoff, now.Add(42*time.Second)
	in := Input{
		Items: []lifecycle.Item{
			item("late", "waiting", 1, 0, 0),
			item("early", "waiting", 9, 0, 0),
			item("second", "idle", 5, 2, 0),
			item("first", "idle", 2, 1, 0),
			item("clash", "idle", 3, 1, 0),
			item("busy", "working", 4, 0, 0),
			item("fresh", "idle", 4, 0, 0),
			item("g-models", "working", 6, 0, 0),
		},
		Runs: []*run.Run{r},
		Queue: map[string]land.Queue{"/r": {Entries: []land.QueueEntry{
			{Name: "first", Clean: true}, {Name: "second", Clean: true},
			{Name: "clash", Base: "main", Clean: false, Conflicts: []string{"a.go"}},
		}}},
		Events: []Event{{At: ago(3), Name: "old", Event: "shipped"}, {At: ago(1), Name: "new", Event: "deleted"}},
	}
	b := Build(in, now)
	names := func(s Section) []string {
		var out []string
		for _, row := range b.In(s) {
			out = append(out, rowName(row))
		}
		return out
	}
	require.Equal(t, []string{"early", "clash", "late"}, names(NeedsYou), "longest waiting first")
	require.Equal(t, []string{"first", "second"}, names(ReadyToShip), "in queue order")
	require.Equal(t, []string{"g-models", "busy", "fresh"}, names(InFlight))
	require.Equal(t, []string{"g/api", "g/db"}, names(Queued))
	require.Equal(t, []string{"new", "old"}, names(Recent), "newest first")

	q := b.In(Queued)
	require.Equal(t, "waits for models", q[0].Why)
	require.Equal(t, "retry in 42s", q[1].Why)
	require.Equal(t, "conflicts with main in a.go", b.In(NeedsYou)[1].Why)
	require.Equal(t, "merges cleanly", b.In(ReadyToShip)[0].Prediction)
	m := b.In(InFlight)[0]
	require.Equal(t, []any{"g", "models", 1, 3}, []any{m.Run, m.TaskID, m.Attempt, m.MaxAttempts})
	require.Equal(t, []string{"run g: 0/3 done"}, b.Progress)
	require.Empty(t, m.PR, "no pull request")
	require.Equal(t, "no changes yet", b.In(InFlight)[2].Why)
}

// A finished agent whose figures the monitor has not worked out yet is
// not said to have no changes: nothing is known of them.
func TestAFinishedAgentWithFiguresPendingIsNotSaidToHaveNone(t *testing.T) {
	now := time.Now()
	it := lifecycle.Item{Name: "docs", Repo: "/r", Status: "idle", StatusSince: now, FiguresPending: true}
	b := Build(Input{Items: []lifecycle.Item{it}}, now)
	require.Len(t, b.In(InFlight), 1)
	require.Equal(t, "changes not counted yet", b.In(InFlight)[0].Why)

	code := 0
	gone := lifecycle.Item{Name: "crashed", Repo: "/r", Status: "exited", ExitCode: &code, StatusSince: now, FiguresPending: true}
	b = Build(Input{Items: []lifecycle.Item{gone}}, now)
	require.Empty(t, b.In(Ended), "an exited agent's uncounted work is not ended with no changes")
	require.Equal(t, "exited (code 0), changes not counted yet", b.In(InFlight)[0].Why)
}

// An escalated reaction puts its agent in NEEDS YOU with the reason, and
// a pull request shows on the row.
func TestBuildShowsEscalatedReactionsAndPRs(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	pr := &state.PR{Number: 7, State: "OPEN", Checks: "fail", Review: "CHANGES_REQUESTED"}
	in := Input{Items: []lifecycle.Item{
		{Name: "ci", Repo: "/r", Status: "idle", StatusSince: now, Ahead: 1, PR: pr, NeedsYou: []string{"ci_failed: test (3 attempts)"}},
		{Name: "ok", Repo: "/r", Status: "idle", StatusSince: now, Ahead: 1, PR: &state.PR{Number: 8, State: "OPEN", Checks: "pass"}},
	}}
	b := Build(in, now)
	require.Len(t, b.In(NeedsYou), 1)
	row := b.In(NeedsYou)[0]
	require.Equal(t, "ci", row.Name)
	require.Equal(t, "ci_failed: test (3 attempts)", row.Why)
	require.Equal(t, "#7 open, checks fail, changes requested", row.PR)
	require.Equal(t, "#8 open, checks pass", b.In(ReadyToShip)[0].PR)
}

func rowName(r Row) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Run + "/" + r.TaskID
}

func TestCleanLineDropsControlsAndEscapes(t *testing.T) {
	require.Equal(t, "bad [2J]0;x thing   ok", untrusted.CleanLine("bad \x1b[2J\x1b]0;x\x07 thing\n\t\rok"))
	require.Equal(t, "wide 日本 stays", untrusted.CleanLine("wide 日本 stays"))
	require.Equal(t, "c1", untrusted.CleanLine("c\u009b1"))
}

// Spawned agents sit right under their spawner in its section, whatever
// their age; in NEEDS YOU the longest waiting comes first, spawned or not.
func TestSpawnedAgentsSitUnderTheirSpawner(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	ago := func(m int) time.Time { return now.Add(-time.Duration(m) * time.Minute) }
	item := func(name, status string, since int, spawner string) lifecycle.Item {
		return lifecycle.Item{Name: name, Repo: "/r", Status: status, StatusSince: ago(since), Spawner: spawner}
	}
	b := Build(Input{Items: []lifecycle.Item{
		item("x", "working", 1, "lead"),
		item("busy", "working", 5, ""),
		item("lead", "working", 9, ""),
		item("y", "working", 7, "lead"),
		item("asks", "waiting", 2, "lead"),
		item("other", "waiting", 8, ""),
	}}, now)
	var inFlight []string
	for _, r := range b.In(InFlight) {
		inFlight = append(inFlight, r.Name)
	}
	require.Equal(t, []string{"lead", "y", "x", "busy"}, inFlight)
	require.Equal(t, "lead", b.In(InFlight)[1].Spawner)
	var needs []string
	for _, r := range b.In(NeedsYou) {
		needs = append(needs, r.Name)
	}
	require.Equal(t, []string{"other", "asks"}, needs)
}

// BACKGROUND shows a repository's last consolidation with what it found,
// then the summaries of the passes before it: three passes at most.
func TestBackgroundShowsTheLastPasses(t *testing.T) {
	at := time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	pass := func(h int, lines ...string) memory.Last {
		return memory.Last{Repo: "/r", At: at.Add(-time.Duration(h) * time.Hour), Lines: lines}
	}
	last := pass(0, "mined 3", "contradiction: #1 and #2")
	last.Earlier = []memory.Last{pass(6, "mined 1", "stale fact #4"), pass(12, "consolidation failed: locked"), pass(18, "mined 9")}
	b := Build(Input{Dreams: []memory.Last{last}}, at)
	var got []string
	for _, row := range b.In(Background) {
		got = append(got, row.Event+": "+row.Why)
	}
	require.Equal(t, []string{
		"consolidated: mined 3", "found: contradiction: #1 and #2",
		"consolidated: mined 1", "consolidated: consolidation failed: locked",
	}, got, "the last pass and what it found, then two earlier ones")
}

// Build reads the clock only from now: a limited agent's reset is said
// against it, the same on every build of the same input.
func TestBuildSaysALimitsResetAgainstItsNow(t *testing.T) {
	now := time.Date(2026, 1, 2, 12, 0, 0, 0, time.Local)
	reset := now.Add(3 * time.Hour)
	in := Input{Items: []lifecycle.Item{{Name: "capped", Repo: "/r", Status: string(state.Limited), Limit: &state.Limit{Reset: reset}}}}
	rows := Build(in, now).In(NeedsYou)
	require.Len(t, rows, 1)
	require.Equal(t, "usage limit, resets 15:00", rows[0].Why, "today, as of now")
	rows = Build(in, now.Add(-48*time.Hour)).In(NeedsYou)
	require.Equal(t, "usage limit, resets "+reset.Format("Mon 15:04"), rows[0].Why, "another day, as of two days before")
}
