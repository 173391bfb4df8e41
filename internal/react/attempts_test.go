package react

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
)

var send2 = config.Reaction{Action: "send", MaxAttempts: 2}

func TestFailSendsEachCauseOnceAndEscalatesAfterMaxAttempts(t *testing.T) {
	now := time.Unix(1000, 0)
	var st state.Reaction
	require.Equal(t, Send, Fail(&st, "a", "A", send2, now))
	require.Equal(t, Nothing, Fail(&st, "a", "A", send2, now), "same cause: once")
	require.Equal(t, Send, Fail(&st, "b", "B", send2, now))
	require.Equal(t, 2, st.Attempts)
	require.Equal(t, Escalate, Fail(&st, "c", "C", send2, now))
	require.Contains(t, st.NeedsYou, "still failing: C")
	require.Equal(t, Nothing, Fail(&st, "d", "D", send2, now), "sticky, told once")
	require.Contains(t, st.NeedsYou, "still failing: D", "why follows the cause")
	require.Equal(t, 2, st.Attempts, "escalation sends nothing")
}

func TestTwoPassesInARowClearTheAttemptsOneDoesNot(t *testing.T) {
	now := time.Unix(1000, 0)
	st := state.Reaction{}
	Fail(&st, "a", "A", send2, now)
	Fail(&st, "b", "B", send2, now)
	Fail(&st, "c", "C", send2, now)
	require.False(t, Pass(&st, now))
	Fail(&st, "d", "D", send2, now) // a failure between resets the run of passes
	require.False(t, Pass(&st, now))
	require.NotEmpty(t, st.NeedsYou)
	require.True(t, Pass(&st, now))
	require.Empty(t, st.NeedsYou)
	require.Zero(t, st.Attempts)
}

func TestOffSendsNothingAndNotifyTellsTheUserOnly(t *testing.T) {
	var st state.Reaction
	require.Equal(t, Nothing, Fail(&st, "a", "A", config.Reaction{Action: "off", MaxAttempts: 1}, time.Now()))
	require.Equal(t, Tell, Fail(&st, "b", "B", config.Reaction{Action: "notify", MaxAttempts: 1}, time.Now()))
	require.Zero(t, st.Attempts)
}

func TestUndeliverableNeedsYouOnce(t *testing.T) {
	st := state.Reaction{Pending: "k"}
	require.Equal(t, Escalate, Undelivered(&st, "Enter did not take"))
	require.Equal(t, Nothing, Undelivered(&st, "again"))
	require.Contains(t, st.NeedsYou, "Enter did not take")
}

func TestPollScheduleIsOnePerIntervalAndStopsWhenNothingCanChange(t *testing.T) {
	cfg := config.Defaults()
	x := &Reactor{}
	pending := &state.Record{Name: "a", Repo: "/r", PR: &state.PR{Number: 1, State: "OPEN", Checks: "pending"}}
	merged := &state.Record{Name: "b", Repo: "/r", PR: &state.PR{Number: 2, State: "MERGED"}}
	start := time.Unix(1000, 0)
	polls := 0
	for s := 0; s < 180; s++ {
		now := start.Add(time.Duration(s) * time.Second)
		if x.pollDue(pending, cfg, now) {
			polls++
		}
		require.False(t, x.pollDue(merged, cfg, now))
	}
	require.Equal(t, 3, polls, "three minutes, one poll a minute")

	// Settled (checks passed, no review awaited, no new head): every 10th
	// interval only, to see it merged or closed.
	settled := &state.Record{Name: "c", Repo: t.TempDir(), Branch: "gone", PR: &state.PR{Number: 3, State: "OPEN", Checks: "pass", Head: "h"}}
	polls = 0
	for s := 0; s < 30*60; s++ {
		if x.pollDue(settled, cfg, start.Add(time.Duration(s)*time.Second)) {
			polls++
		}
	}
	require.Equal(t, 3, polls, "thirty minutes, one poll each ten")
}

func TestFailUnheardNeedsYouAtOnceAndTellsOnce(t *testing.T) {
	now := time.Unix(1000, 0)
	var st state.Reaction
	require.Equal(t, Escalate, FailUnheard(&st, "a", "A", "its agent exited", send2, now))
	require.Equal(t, "its agent exited: A", st.NeedsYou)
	require.Equal(t, 0, st.Attempts, "nothing was sent")
	require.Equal(t, Nothing, FailUnheard(&st, "a", "A", "its agent exited", send2, now), "same cause")
	require.Equal(t, Nothing, FailUnheard(&st, "b", "B", "its agent exited", send2, now), "told once")
	require.Equal(t, "its agent exited: B", st.NeedsYou, "why follows the cause")
	require.Equal(t, Tell, FailUnheard(&state.Reaction{}, "a", "A", "x", config.Reaction{Action: "notify"}, now))
	require.Equal(t, Nothing, FailUnheard(&state.Reaction{}, "a", "A", "x", config.Reaction{Action: "off"}, now))
}

// A failure held for its log is polled every interval only until its log
// was read (or it passed): then the settled schedule applies again.
func TestAHeldLogIsPolledForOnlyUntilItIsRead(t *testing.T) {
	cfg := config.Defaults()
	x := &Reactor{}
	rec := &state.Record{Name: "c", Repo: t.TempDir(), Branch: "gone", PR: &state.PR{Number: 3, State: "OPEN", Checks: "fail", Head: "h"}}
	start := time.Unix(1000, 0)
	require.True(t, x.pollDue(rec, cfg, start), "first poll")
	require.True(t, x.waitForLogs(rec, "h test"))
	require.True(t, x.pollDue(rec, cfg, start.Add(time.Minute)), "the log is owed: next interval")
	x.logsSettled(rec)
	require.False(t, x.pollDue(rec, cfg, start.Add(2*time.Minute)), "settled again: every 10th interval")
}

// A new cause waits while the agent has not had its chance to act on the
// last message: still queued, or no turn of its own ended since.
func TestAwaitsTurnUntilTheAgentEndedATurnAfterTheLastMessage(t *testing.T) {
	sent := time.Unix(1000, 0)
	now := sent.Add(time.Minute)
	st := state.Reaction{Attempts: 1, At: sent, Pending: "k"}
	idleAfter := &state.Record{Status: state.Idle, StatusSince: sent.Add(time.Second)}
	require.True(t, AwaitsTurn(&st, idleAfter, now), "still in the outbox")

	st.Pending = ""
	require.False(t, AwaitsTurn(&st, idleAfter, now), "delivered, and a turn ended since")
	require.True(t, AwaitsTurn(&st, &state.Record{Status: state.Idle, StatusSince: sent.Add(-time.Second)}, now), "idle since before it was sent")
	require.True(t, AwaitsTurn(&st, &state.Record{Status: state.Working, StatusSince: sent.Add(time.Second)}, now), "working on it")
	require.False(t, AwaitsTurn(&st, &state.Record{Status: state.Idle, StatusSince: sent.Add(-time.Second)}, sent.Add(turnWait)), "not for ever: a quick turn may have gone unseen")

	require.False(t, AwaitsTurn(&state.Reaction{Pending: "k"}, idleAfter, now), "no message sent yet: nothing to wait for")
	require.False(t, AwaitsTurn(&state.Reaction{Attempts: 3, NeedsYou: "x", Pending: "k"}, idleAfter, now), "the user's already")
}

func TestACauseLeftStandingAfterTheAgentsTurnIsTheNextAttemptThenNeedsYou(t *testing.T) {
	t1 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	st := state.Reaction{}
	require.Equal(t, Send, Fail(&st, "c", "C", send2, t1))
	rec := &state.Record{Status: state.Idle, StatusSince: t1.Add(-time.Minute)}
	require.False(t, Unheeded(&st, rec), "no turn since the message")
	st.Pending = "k"
	rec.StatusSince = t1.Add(time.Minute)
	require.False(t, Unheeded(&st, rec), "still in the outbox")
	st.Pending = ""
	require.True(t, Unheeded(&st, rec))

	require.Equal(t, Send, FailAgain(&st, "C", send2, t1.Add(2*time.Minute)))
	require.Equal(t, 2, st.Attempts)
	require.False(t, Unheeded(&st, rec), "its turn on the second message is still to come")
	rec.StatusSince = t1.Add(3 * time.Minute)
	require.True(t, Unheeded(&st, rec))
	require.Equal(t, Escalate, FailAgain(&st, "C", send2, t1.Add(4*time.Minute)))
	require.Contains(t, st.NeedsYou, "2 attempt(s) used")
	require.False(t, Unheeded(&st, rec), "told the user once")
}

func TestAWithdrawnMessageIsNoAttempt(t *testing.T) {
	st := state.Reaction{}
	require.Equal(t, Send, Fail(&st, "c", "C", send2, time.Now()))
	st.Pending = "k"
	Withdrawn(&st)
	require.Zero(t, st.Attempts)
	require.Empty(t, st.Pending)
	require.Equal(t, Send, Fail(&st, "c", "C", send2, time.Now()), "the same cause again is news")
}
