package run

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func engineRun(t *testing.T, into string) *Run {
	t.Helper()
	p, err := Parse("p.toml", []byte(`
[run]
`+into+`
[[task]]
id = "a"
task = "a"
[[task]]
id = "b"
task = "b"
depends_on = ["a"]
`))
	require.NoError(t, err)
	r := NewRun("r", "/repo", "main", p, time.Unix(0, 0))
	r.Socket = "/tmp/tmux/default"
	return r
}

func TestApplyLogsEachChangeOnce(t *testing.T) {
	now := time.Unix(100, 0)
	r := engineRun(t, "")
	a, _ := r.Task("a")
	a.State, a.Name = Running, "r-a"
	nudge := Verdict{Action: SendMessage, Message: &Message{Kind: MsgNudge}, Why: "idle without any result"}

	evs := r.apply(judged{id: "a", name: "r-a", was: Running, v: nudge}, now)
	require.Len(t, evs, 1)
	require.Equal(t, "owed", evs[0].Event)
	require.Contains(t, evs[0].Detail, "not sent")
	require.Equal(t, MsgNudge, a.Owed)
	require.Equal(t, Running, a.State, "an owed message leaves the task running")
	require.Empty(t, r.apply(judged{id: "a", name: "r-a", was: Running, v: nudge}, now), "owed once, not every tick")

	ask := Verdict{Action: AskUser, Why: "the agent waits for you"}
	require.Len(t, r.apply(judged{id: "a", name: "r-a", was: Running, v: ask}, now), 1)
	require.Equal(t, NeedsYou, a.State)
	require.Empty(t, r.apply(judged{id: "a", name: "r-a", was: NeedsYou, v: ask}, now))
	evs = r.apply(judged{id: "a", name: "r-a", was: NeedsYou, v: Verdict{Action: KeepWaiting, Why: "the agent is working"}}, now)
	require.Equal(t, "running", evs[0].Event, "answered: back to running")

	require.Empty(t, r.apply(judged{id: "a", name: "other", was: Running, v: ask}, now), "a verdict on another agent is dropped")

	evs = r.apply(judged{id: "a", name: "r-a", was: Running, v: Verdict{Action: MarkDone, Evidence: Evidence{Signal: "owt done", Commits: 2, Summary: "s"}}}, now)
	require.Equal(t, "done", evs[0].Event)
	require.Equal(t, "owt done; 2 commit(s); summary: s", evs[0].Detail)
	require.Equal(t, 2, a.Evidence.Commits)
	require.Empty(t, r.finish(now), "b is still pending")
}

func TestFailureBacksOffThenIsFinalAndBlocksDependents(t *testing.T) {
	now := time.Unix(100, 0)
	r := engineRun(t, "")
	a, _ := r.Task("a")
	a.State, a.Name, a.Attempt = Running, "r-a", 1
	half := func() float64 { return 0.5 } // no jitter: the plan's backoff exactly
	fail := Verdict{Action: MarkFailed, Failure: &Failure{Class: FailAgent, Error: "no API"}}
	evs := r.apply(judged{id: "a", name: "r-a", was: Running, v: fail, jitter: half}, now)
	require.Equal(t, Backoff, a.State, "attempts left: backoff, the worktree kept")
	require.Equal(t, "backoff", evs[0].Event)
	require.Equal(t, now.Add(DefaultBackoff), a.NextStart)
	require.Equal(t, "r-a", a.Name)

	a.State, a.Attempt = Running, r.Plan.Retry.MaxAttempts
	evs = r.apply(judged{id: "a", name: "r-a", was: Running, v: fail, jitter: half}, now)
	require.Equal(t, Failed, a.State)
	require.Equal(t, "failed", evs[0].Event)
	require.Contains(t, evs[0].Detail, "no attempts left")
	b, _ := r.Task("b")
	require.Equal(t, Blocked, b.State)
}

func TestLandingOrderAndFinish(t *testing.T) {
	now := time.Unix(100, 0)
	r := engineRun(t, `into = "feat/x"`)
	a, _ := r.Task("a")
	b, _ := r.Task("b")
	b.State = Done
	require.Nil(t, r.nextToLand(time.Now()), "b waits for a to land")
	a.State = Done
	require.Equal(t, "a", r.nextToLand(time.Now()).ID)
	a.State = Landed
	require.Equal(t, "b", r.nextToLand(time.Now()).ID)
	require.Empty(t, r.finish(now), "done is not the end in a run with into")
	b.State = Landed
	require.Len(t, r.finish(now), 1)
	require.Equal(t, Finished, r.State)

	pt, _ := r.Plan.TaskByID("b")
	require.Equal(t, "feat/x", r.startBase(pt), "children start from into")
	pa, _ := r.Plan.TaskByID("a")
	require.Equal(t, "main", r.startBase(pa))
}

func TestEngineDrivesOnlyItsServersRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	e := &Engine{Store: Store{Dir: dir}, Socket: "/tmp/tmux/default"}
	e.Tick(time.Now()) // no runs dir: nothing to do, no error
	_, err := os.Stat(dir)
	require.ErrorIs(t, err, os.ErrNotExist, "looking makes no dir")

	mine := engineRun(t, "")
	other := engineRun(t, "")
	other.Name, other.Socket = "other", "/tmp/tmux/elsewhere"
	require.True(t, e.drives(mine))
	require.False(t, e.drives(other))
	mine.State = Paused
	require.False(t, e.drives(mine), "a paused run with nothing running needs no look")
	a, _ := mine.Task("a")
	a.State = Running
	require.True(t, e.drives(mine), "its running agents are still judged")
}

// A run whose last task failed to start (no judgement, no landing) still
// ends on the engine's next step: failed, not finished (issue 16, item 5).
func TestARunWhoseTasksAllFailedToStartEndsFailed(t *testing.T) {
	dir := t.TempDir()
	store := Store{Dir: dir}
	r := engineRun(t, "")
	for _, task := range r.Tasks {
		task.State = Failed
	}
	r.State = Active
	require.NoError(t, store.Create(r))
	e := &Engine{Store: store, Socket: r.Socket}
	require.NoError(t, e.finishIfOver("r", time.Unix(200, 0)))
	got, err := store.Load("r")
	require.NoError(t, err)
	require.Equal(t, RunFailed, got.State)
	require.Equal(t, "a failed; b failed: 'owt run retry' or 'owt run skip' goes on", got.Why)

	// A landing failure waits, and is tried again by itself later.
	r2 := engineRun(t, `into = "feat/x"`)
	a, _ := r2.Task("a")
	a.State, a.Failure = NeedsYou, &Failure{Class: FailLand, At: time.Unix(100, 0)}
	require.Nil(t, r2.nextToLand(time.Unix(105, 0)))
	require.Equal(t, "a", r2.nextToLand(time.Unix(100, 0).Add(landRetryAfter)).ID)
	require.False(t, r2.over())
}
