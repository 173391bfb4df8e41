package run

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// graphPlan is a→c, b→c, c→d with max_concurrent n.
func graphPlan(t *testing.T, n int, into string) *Plan {
	t.Helper()
	src := "[run]\nmax_concurrent = " + itoa(n) + "\n"
	if into != "" {
		src += "into = \"" + into + "\"\n"
	}
	src += `
[[task]]
id = "a"
task = "a"
[[task]]
id = "b"
task = "b"
[[task]]
id = "c"
task = "c"
depends_on = ["a", "b"]
[[task]]
id = "d"
task = "d"
depends_on = ["c"]
`
	p, err := Parse("p.toml", []byte(src))
	require.NoError(t, err)
	return p
}

func itoa(n int) string { return strconv.Itoa(n) }

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func set(r *Run, id string, s TaskState) *TaskRun {
	tr, _ := r.Task(id)
	tr.State = s
	return tr
}

func TestReadyRespectsDependenciesAndSlots(t *testing.T) {
	r := NewRun("r", "/repo", "main", graphPlan(t, 1, ""), t0)
	require.Equal(t, []string{"a"}, Ready(r, t0), "one slot: the first in file order")

	set(r, "a", Running)
	require.Empty(t, Ready(r, t0), "the slot is taken")

	set(r, "a", Done)
	require.Equal(t, []string{"b"}, Ready(r, t0), "c waits for b")

	set(r, "b", NeedsYou)
	require.Empty(t, Ready(r, t0), "an agent waiting for the user keeps its slot")

	set(r, "b", Skipped)
	require.Equal(t, []string{"c"}, Ready(r, t0), "skipped counts as done for dependents")

	r.Plan.MaxConcurrent = 3
	set(r, "a", Pending)
	set(r, "b", Pending)
	require.Equal(t, []string{"a", "b"}, Ready(r, t0), "free slots fill in file order; c still waits")
}

func TestReadyWithIntoWaitsForParentsToLand(t *testing.T) {
	r := NewRun("r", "/repo", "main", graphPlan(t, 3, "feat/x"), t0)
	set(r, "a", Landed)
	set(r, "b", Done)
	require.Empty(t, Ready(r, t0), "b is done but not landed in into yet")
	set(r, "b", Landed)
	require.Equal(t, []string{"c"}, Ready(r, t0))
}

func TestReadyFailedOrCancelledParentHoldsChildren(t *testing.T) {
	r := NewRun("r", "/repo", "main", graphPlan(t, 3, ""), t0)
	set(r, "a", Failed)
	set(r, "b", Done)
	require.Empty(t, Ready(r, t0))
	set(r, "a", Cancelled)
	require.Empty(t, Ready(r, t0))
}

func TestReadyBackoffWaitsForItsTime(t *testing.T) {
	r := NewRun("r", "/repo", "main", graphPlan(t, 3, ""), t0)
	a := set(r, "a", Backoff)
	a.NextStart = t0.Add(30 * time.Second)
	require.Equal(t, []string{"b"}, Ready(r, t0))
	require.Equal(t, []string{"b"}, Ready(r, t0.Add(29*time.Second)))
	require.Equal(t, []string{"a", "b"}, Ready(r, t0.Add(30*time.Second)), "due at NextStart")
}

func TestReadyOnlyInAnActiveRun(t *testing.T) {
	r := NewRun("r", "/repo", "main", graphPlan(t, 3, ""), t0)
	for _, s := range []RunState{Paused, Stopped, Finished} {
		r.State = s
		require.Empty(t, Ready(r, t0), s)
	}
}

func TestSetState(t *testing.T) {
	r := NewRun("r", "/repo", "main", graphPlan(t, 3, ""), t0)
	ev, changed, err := r.SetState(Paused, t0.Add(time.Second))
	require.NoError(t, err)
	require.True(t, changed)
	require.Equal(t, Event{At: t0.Add(time.Second), Event: "paused", Detail: "active → paused"}, ev)
	require.Equal(t, t0.Add(time.Second), r.UpdatedAt)

	_, changed, err = r.SetState(Paused, t0)
	require.NoError(t, err)
	require.False(t, changed, "already paused")

	ev, _, err = r.SetState(Stopped, t0)
	require.NoError(t, err)
	require.Equal(t, "stopped", ev.Event)
	ev, _, err = r.SetState(Active, t0)
	require.NoError(t, err)
	require.Equal(t, "resumed", ev.Event)

	r.State = Finished
	_, _, err = r.SetState(Active, t0)
	require.EqualError(t, err, "run r is finished")
	_, _, err = r.SetState(Finished, t0)
	require.Error(t, err, "finishing is the engine's call")
}

func TestStoreCreateUpdateListEvents(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "runs")}
	p := graphPlan(t, 2, "")
	r := NewRun("auth", "/repo", "main", p, t0)
	require.NoError(t, s.Create(r))

	fi, err := os.Stat(s.Path("auth"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	err = s.Create(NewRun("auth", "/repo", "main", p, t0))
	require.ErrorIs(t, err, ErrRunExists)

	got, err := s.Load("auth")
	require.NoError(t, err)
	require.Equal(t, Active, got.State)
	require.Equal(t, p.Tasks, got.Plan.Tasks)
	require.Equal(t, Duration(DefaultTimeout), got.Plan.Timeout, "durations survive the file")

	require.NoError(t, s.Update("auth", func(r *Run) ([]Event, error) {
		ev, _, err := r.SetState(Stopped, t0.Add(time.Minute))
		return []Event{ev}, err
	}))
	require.NoError(t, s.Update("auth", func(r *Run) ([]Event, error) { return nil, nil }), "no events: nothing written")

	evs, err := s.Events("auth")
	require.NoError(t, err)
	require.Len(t, evs, 2)
	require.Equal(t, "registered", evs[0].Event)
	require.Equal(t, "4 tasks in 3 waves, at most 2 at once", evs[0].Detail)
	require.Equal(t, "stopped", evs[1].Event)

	require.NoError(t, s.Create(NewRun("later", "/repo", "main", p, t0.Add(time.Hour))))
	runs, err := s.List()
	require.NoError(t, err)
	require.Len(t, runs, 2)
	require.Equal(t, "auth", runs[0].Name)
	latest, ok := Latest(runs)
	require.True(t, ok)
	require.Equal(t, "later", latest.Name, "the newest active run")

	_, err = s.Load("nosuch")
	require.ErrorIs(t, err, ErrNoSuchRun)
	_, err = s.Load("../x")
	require.ErrorIs(t, err, ErrNoSuchRun)
	err = s.Update("nosuch", func(*Run) ([]Event, error) { return nil, nil })
	require.ErrorIs(t, err, ErrNoSuchRun)
}

func TestStoreRefusesNewerAndCorruptFiles(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	require.NoError(t, os.WriteFile(s.Path("new"), []byte(`{"version": 99, "name": "new"}`), 0o600))
	_, err := s.Load("new")
	require.ErrorContains(t, err, "written by a newer owt")
	require.NoError(t, os.WriteFile(s.Path("bad"), []byte(`{`), 0o600))
	_, err = s.Load("bad")
	require.ErrorContains(t, err, "is corrupt")
	_, err = s.List()
	require.Error(t, err, "a run that cannot be read is reported, not dropped")
}

func TestLatest(t *testing.T) {
	_, ok := Latest(nil)
	require.False(t, ok)
	only := &Run{Name: "only", State: Stopped}
	r, ok := Latest([]*Run{only})
	require.True(t, ok)
	require.Equal(t, only, r)
	_, ok = Latest([]*Run{{Name: "x", State: Stopped}, {Name: "y", State: Finished}})
	require.False(t, ok, "two runs, none active: ambiguous")
}
