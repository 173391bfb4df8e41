package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/run"

	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/stretchr/testify/require"
)

func TestApplyLogsEachChangeOnce(t *testing.T) {
	now := time.Unix(100, 0)
	r := engineRun(t, "")
	a, _ := r.Task("a")
	a.State, a.Name = run.Running, "r-a"
	nudge := run.Verdict{Action: run.SendMessage, Message: &run.Message{Kind: run.MsgNudge}, Why: "idle without any result"}

	evs := apply(r, judged{id: "a", name: "r-a", was: run.Running, v: nudge}, now)
	require.Len(t, evs, 1)
	require.Equal(t, "owed", evs[0].Event)
	require.Contains(t, evs[0].Detail, "not sent")
	require.Equal(t, run.MsgNudge, a.Owed)
	require.Equal(t, run.Running, a.State, "an owed message leaves the task running")
	require.Empty(t, apply(r, judged{id: "a", name: "r-a", was: run.Running, v: nudge}, now), "owed once, not every tick")

	ask := run.Verdict{Action: run.AskUser, Why: "the agent waits for you"}
	require.Len(t, apply(r, judged{id: "a", name: "r-a", was: run.Running, v: ask}, now), 1)
	require.Equal(t, run.NeedsYou, a.State)
	require.Empty(t, apply(r, judged{id: "a", name: "r-a", was: run.NeedsYou, v: ask}, now))
	evs = apply(r, judged{id: "a", name: "r-a", was: run.NeedsYou, v: run.Verdict{Action: run.KeepWaiting, Why: "the agent is working"}}, now)
	require.Equal(t, "running", evs[0].Event, "answered: back to running")

	require.Empty(t, apply(r, judged{id: "a", name: "other", was: run.Running, v: ask}, now), "a verdict on another agent is dropped")

	evs = apply(r, judged{id: "a", name: "r-a", was: run.Running, v: run.Verdict{Action: run.MarkDone, Evidence: run.Evidence{Signal: "owt done", Commits: 2, Summary: untrusted.From("s")}}}, now)
	require.Equal(t, "done", evs[0].Event)
	require.Equal(t, "owt done; 2 commit(s); summary: s", evs[0].Detail)
	require.Equal(t, 2, a.Evidence.Commits)
	require.Empty(t, r.Finish(now), "b is still pending")
}

func TestFailureBacksOffThenIsFinalAndBlocksDependents(t *testing.T) {
	now := time.Unix(100, 0)
	r := engineRun(t, "")
	a, _ := r.Task("a")
	a.State, a.Name, a.Attempt = run.Running, "r-a", 1
	half := func() float64 { return 0.5 } // no jitter: the plan's backoff exactly
	fail := run.Verdict{Action: run.MarkFailed, Failure: &run.Failure{Class: run.FailAgent, Error: untrusted.From("no API")}}
	evs := apply(r, judged{id: "a", name: "r-a", was: run.Running, v: fail, jitter: half}, now)
	require.Equal(t, run.Backoff, a.State, "attempts left: backoff, the worktree kept")
	require.Equal(t, "backoff", evs[0].Event)
	require.Equal(t, now.Add(run.DefaultBackoff), a.NextStart)
	require.Equal(t, "r-a", a.Name)

	a.State, a.Attempt = run.Running, r.Plan.Retry.MaxAttempts
	evs = apply(r, judged{id: "a", name: "r-a", was: run.Running, v: fail, jitter: half}, now)
	require.Equal(t, run.Failed, a.State)
	require.Equal(t, "failed", evs[0].Event)
	require.Contains(t, evs[0].Detail, "no attempts left")
	b, _ := r.Task("b")
	require.Equal(t, run.Blocked, b.State)
}

func TestEngineDrivesOnlyItsServersRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	e := &Engine{Store: run.Store{Dir: dir}, Socket: "/tmp/tmux/default"}
	e.Tick(time.Now()) // no runs dir: nothing to do, no error
	_, err := os.Stat(dir)
	require.ErrorIs(t, err, os.ErrNotExist, "looking makes no dir")

	mine := engineRun(t, "")
	other := engineRun(t, "")
	other.Name, other.Socket = "other", "/tmp/tmux/elsewhere"
	require.True(t, e.drives(mine))
	require.False(t, e.drives(other))
	mine.State = run.Paused
	require.False(t, e.drives(mine), "a paused run with nothing running needs no look")
	a, _ := mine.Task("a")
	a.State = run.Running
	require.True(t, e.drives(mine), "its running agents are still judged")
}

// A run whose last task failed to start (no judgement, no landing) still
// ends on the engine's next step: failed, not finished (issue 16, item 5).
func TestARunWhoseTasksAllFailedToStartEndsFailed(t *testing.T) {
	dir := t.TempDir()
	store := run.Store{Dir: dir}
	r := engineRun(t, "")
	for _, task := range r.Tasks {
		task.State = run.Failed
	}
	r.State = run.Active
	require.NoError(t, store.Create(r))
	e := &Engine{Store: store, Socket: r.Socket}
	require.NoError(t, e.finishIfOver("r", time.Unix(200, 0)))
	got, err := store.Load("r")
	require.NoError(t, err)
	require.Equal(t, run.RunFailed, got.State)
	require.Equal(t, "a failed; b failed: 'owt run retry' or 'owt run skip' goes on", got.Why)

	// A landing failure waits, and is tried again by itself later.
	r2 := engineRun(t, `into = "feat/x"`)
	a, _ := r2.Task("a")
	a.State, a.Failure = run.NeedsYou, &run.Failure{Class: run.FailLand, At: time.Unix(100, 0)}
	require.Nil(t, r2.NextToLand(time.Unix(105, 0)))
	require.Equal(t, "a", r2.NextToLand(time.Unix(100, 0).Add(run.LandRetryAfter)).ID)
	require.False(t, r2.Over())
}

func TestBriefPartsAreBounded(t *testing.T) {
	require.Equal(t, "abc", clip("  abc \n", 5))
	require.Equal(t, "abcde […]", clip("abcdefgh", 5))
	require.Equal(t, "    > !write x\n    > two\n", quote("!write x\ntwo"), "a summary line never starts a line")
	require.True(t, strings.HasPrefix(run.Indent("a | 1 +", "    "), "    a"))
}
