package run

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/outbox"
)

func TestApplyMailLogsQueuedHeldDeliveredOnce(t *testing.T) {
	now := time.Unix(100, 0)
	r := engineRun(t, "")
	a, _ := r.Task("a")
	a.State, a.Name, a.Attempt = Running, "r-a", 1
	nudge := Verdict{Action: SendMessage, Message: &Message{Kind: MsgNudge, Text: NudgeText}, Why: "idle without any result"}
	s := sendingOf(r, a, *nudge.Message)
	at := func(st outbox.State, why string, added bool) judged {
		return judged{id: "a", name: "r-a", was: a.State, v: nudge,
			mail: &mail{msg: outbox.Message{Kind: s.Kind, Key: s.Key, State: st, Why: why, SentAt: now}, sending: s, added: added}}
	}

	evs := r.apply(at(outbox.Queued, "", true), now)
	require.Equal(t, "queued", evs[0].Event)
	require.Equal(t, MsgNudge, a.Owed)
	require.Empty(t, r.apply(at(outbox.Queued, "", false), now), "queued once, not every tick")

	evs = r.apply(at(outbox.Queued, outbox.HeldByUser, false), now)
	require.Equal(t, "held", evs[0].Event)
	require.Empty(t, r.apply(at(outbox.Queued, outbox.HeldByUser, false), now))

	evs = r.apply(at(outbox.Delivered, "", false), now)
	require.Equal(t, "delivered", evs[0].Event)
	require.Equal(t, now, a.Memo.NudgedAt, "the judge will not nudge again")
	require.Nil(t, a.Sending)
	require.Empty(t, a.Owed)
	require.Equal(t, Running, a.State)
}

func TestAnUndeliverableMessageNeedsTheUser(t *testing.T) {
	now := time.Unix(100, 0)
	r := engineRun(t, "")
	a, _ := r.Task("a")
	a.State, a.Name, a.Attempt = Running, "r-a", 1
	nudge := Verdict{Action: SendMessage, Message: &Message{Kind: MsgNudge}, Why: "idle without any result"}
	s := sendingOf(r, a, *nudge.Message)
	a.Sending = &s
	jv := judged{id: "a", name: "r-a", was: Running, v: nudge,
		mail: &mail{msg: outbox.Message{State: outbox.Undeliverable, Why: "Enter did not take"}, sending: s}}

	evs := r.apply(jv, now)
	require.Len(t, evs, 2)
	require.Equal(t, "undeliverable", evs[0].Event)
	require.Equal(t, NeedsYou, a.State)
	require.Equal(t, "could not deliver a nudge: Enter did not take", a.Why)
	require.True(t, a.Memo.NudgedAt.IsZero(), "not delivered, not remembered as sent")
	jv.was = NeedsYou
	require.Empty(t, r.apply(jv, now), "said once")
}

// A retry past the last attempt starts attempt N again, and a run may be
// registered again under its name: each attempt's message has its own key,
// so an earlier attempt's delivered message never stands for it.
func TestEachAttemptStartNamesItsOwnMessages(t *testing.T) {
	r := engineRun(t, "")
	a, _ := r.Task("a")
	a.Attempt, a.StartedAt = 3, time.Unix(100, 0)
	msg := Message{Kind: MsgNudge, Text: NudgeText}
	first := sendingOf(r, a, msg).Key
	a.StartedAt = time.Unix(200, 0) // attempt 3 again, after owt run retry
	require.NotEqual(t, first, sendingOf(r, a, msg).Key)
}
