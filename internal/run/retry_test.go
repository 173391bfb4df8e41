package run

import (
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/stretchr/testify/require"
)

func fixed(u float64) Jitter { return func() float64 { return u } }

func TestBackoffDoublesCapsAndJitters(t *testing.T) {
	r := Retry{MaxAttempts: 9, Backoff: Duration(30 * time.Second), BackoffMax: Duration(3 * time.Minute)}
	mid := fixed(0.5) // no jitter
	require.Equal(t, 30*time.Second, BackoffDelay(r, 1, mid))
	require.Equal(t, time.Minute, BackoffDelay(r, 2, mid))
	require.Equal(t, 2*time.Minute, BackoffDelay(r, 3, mid))
	require.Equal(t, 3*time.Minute, BackoffDelay(r, 4, mid), "capped at backoff_max")
	require.Equal(t, 3*time.Minute, BackoffDelay(r, 40, mid), "no overflow however many attempts")

	require.Equal(t, 24*time.Second, BackoffDelay(r, 1, fixed(0)), "-20%")
	require.Equal(t, 36*time.Second, BackoffDelay(r, 1, fixed(1)), "+20% (at the limit of [0,1))")
	require.Equal(t, 3*time.Minute, BackoffDelay(r, 4, fixed(1)), "jitter never passes backoff_max")
}

// chainPlan is a→b→c, and d alone, with 2 attempts and a 10s backoff.
func chainPlan(t *testing.T) *Plan {
	t.Helper()
	p, err := Parse("p.toml", []byte(`
[run]
max_concurrent = 4
[run.retry]
max_attempts = 2
backoff = "10s"
backoff_max = "1m"
[[task]]
id = "a"
task = "a"
[[task]]
id = "b"
task = "b"
depends_on = ["a"]
[[task]]
id = "c"
task = "c"
depends_on = ["b"]
[[task]]
id = "d"
task = "d"
`))
	require.NoError(t, err)
	return p
}

func TestFailBacksOffThenFailsAndBlocksDependents(t *testing.T) {
	r := NewRun("r", "/repo", "main", chainPlan(t), t0)
	a := set(r, "a", Running)
	a.Attempt = 1

	evs, err := r.Fail("a", Failure{Class: FailCrash, Error: untrusted.From("exit 1")}, fixed(0.5), t0)
	require.NoError(t, err)
	require.Equal(t, Backoff, a.State)
	require.Equal(t, t0.Add(10*time.Second), a.NextStart, "persisted next start")
	require.Equal(t, "backoff", evs[0].Event)
	require.Equal(t, []string{"d"}, Ready(r, t0.Add(9*time.Second)), "a is not ready before its time")
	require.Equal(t, []string{"a", "d"}, Ready(r, t0.Add(10*time.Second)))

	a.State, a.Attempt = Running, 2
	evs, err = r.Fail("a", Failure{Class: FailTimeout, Error: untrusted.From("45m active")}, fixed(0.5), t0.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, Failed, a.State, "attempts exhausted")
	require.Equal(t, FailTimeout, a.Failure.Class)
	b, _ := r.Task("b")
	c, _ := r.Task("c")
	d, _ := r.Task("d")
	require.Equal(t, Blocked, b.State)
	require.Equal(t, []string{"a"}, b.BlockedBy)
	require.Equal(t, Blocked, c.State, "blocked through b")
	require.Equal(t, []string{"b"}, c.BlockedBy)
	require.Equal(t, Pending, d.State, "an unrelated task goes on")
	require.Equal(t, []string{"failed", "blocked", "blocked"}, eventNames(evs))

	_, err = r.Fail("a", Failure{Class: FailCrash}, fixed(0.5), t0)
	require.Error(t, err, "a failed task does not fail again")
}

func TestAttemptsSurviveAStatusThatComesAndGoes(t *testing.T) {
	// The attempt count lives on the task, not in the judge: a task that
	// backs off, starts again and fails again uses up its attempts.
	r := NewRun("r", "/repo", "main", chainPlan(t), t0)
	a := set(r, "a", Running)
	a.Attempt = 1
	_, err := r.Fail("a", Failure{Class: FailStall}, fixed(0.5), t0)
	require.NoError(t, err)
	a.State, a.Attempt = Running, 2 // the engine started attempt 2
	_, err = r.Fail("a", Failure{Class: FailStall}, fixed(0.5), t0)
	require.NoError(t, err)
	require.Equal(t, Failed, a.State)
}

func TestSkipReleasesDependents(t *testing.T) {
	r := NewRun("r", "/repo", "main", chainPlan(t), t0)
	a := set(r, "a", Running)
	a.Attempt = 2
	_, err := r.Fail("a", Failure{Class: FailAgent, Error: untrusted.From("cannot")}, fixed(0.5), t0)
	require.NoError(t, err)

	evs, err := r.Skip("a", t0.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, Skipped, a.State)
	require.Equal(t, []string{"skipped", "released", "released"}, eventNames(evs))
	b, _ := r.Task("b")
	require.Equal(t, Pending, b.State)
	require.Empty(t, b.BlockedBy)
	require.Equal(t, []string{"b", "d"}, Ready(r, t0.Add(time.Minute)), "skipped counts as done for b; c still waits for b")
}

func TestRetryReleasesDependentsAndGivesOneMoreAttempt(t *testing.T) {
	r := NewRun("r", "/repo", "main", chainPlan(t), t0)
	a := set(r, "a", Running)
	a.Attempt, a.Name, a.Branch = 2, "r-a", "run/r/a"
	_, err := r.Fail("a", Failure{Class: FailCrash}, fixed(0.5), t0)
	require.NoError(t, err)

	evs, err := r.Retry("a", t0.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, Pending, a.State)
	require.Equal(t, "r-a", a.Name, "the worktree and its commits are kept")
	require.Equal(t, 2, a.Attempt, "attempts so far: the count never goes down")
	require.Equal(t, 3, r.AttemptsOf(a), "the next start is the last attempt")
	require.Equal(t, []string{"retry", "released", "released"}, eventNames(evs))
	b, _ := r.Task("b")
	require.Equal(t, Pending, b.State, "b waits for a again, no longer blocked")
	require.Equal(t, []string{"a", "d"}, Ready(r, t0.Add(time.Minute)))

	_, err = r.Retry("b", t0)
	require.Error(t, err, "a pending task cannot be retried")
}

func TestCancelBlocksAndSkipOfTheCancelledReleases(t *testing.T) {
	r := NewRun("r", "/repo", "main", chainPlan(t), t0)
	_, err := r.Cancel("a", t0)
	require.NoError(t, err)
	b, _ := r.Task("b")
	require.Equal(t, Blocked, b.State)
	_, err = r.Skip("a", t0)
	require.Error(t, err, "a cancelled task is ended; retry it instead")
	_, err = r.Retry("a", t0)
	require.NoError(t, err)
	require.Equal(t, Pending, b.State)
}

func TestReblockLeavesOtherBlocksAlone(t *testing.T) {
	r := NewRun("r", "/repo", "main", chainPlan(t), t0)
	d := set(r, "d", Blocked) // blocked for another reason (parents conflict), no BlockedBy
	require.Empty(t, r.Reblock(t0))
	require.Equal(t, Blocked, d.State)
}

func TestActiveClockCountsActiveTimeOnly(t *testing.T) {
	var c ActiveClock
	c.Run(t0)
	require.Equal(t, 10*time.Minute, c.Active(t0.Add(10*time.Minute)))
	c.Hold(t0.Add(10 * time.Minute)) // the agent waits for the user
	c.Hold(t0.Add(12 * time.Minute)) // holding twice changes nothing
	require.Equal(t, 10*time.Minute, c.Active(t0.Add(40*time.Minute)), "waiting does not count")
	c.Run(t0.Add(40 * time.Minute))
	c.Run(t0.Add(41 * time.Minute)) // running twice changes nothing
	require.False(t, c.TimedOut(45*time.Minute, t0.Add(70*time.Minute)))
	require.True(t, c.TimedOut(45*time.Minute, t0.Add(75*time.Minute)))
	require.False(t, c.TimedOut(0, t0.Add(1000*time.Hour)), "no timeout")
}

func eventNames(evs []Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Event
	}
	return out
}
