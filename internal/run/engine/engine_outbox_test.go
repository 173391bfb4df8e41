package engine

import (
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/stretchr/testify/require"
)

func TestApplyMailLogsQueuedHeldDeliveredOnce(t *testing.T) {
	now := time.Unix(100, 0)
	r := engineRun(t, "")
	a, _ := r.Task("a")
	a.State, a.Name, a.Attempt = run.Running, "r-a", 1
	nudge := run.Verdict{Action: run.SendMessage, Message: &run.Message{Kind: run.MsgNudge, Text: run.NudgeText}, Why: "idle without any result"}
	s := run.SendingOf(r, a, *nudge.Message)
	at := func(st outbox.State, why string, added bool) judged {
		return judged{id: "a", name: "r-a", was: a.State, v: nudge,
			mail: &mail{msg: outbox.Message{Kind: s.Kind, Key: s.Key, State: st, Why: why, SentAt: now}, sending: s, added: added}}
	}

	evs := apply(r, at(outbox.Queued, "", true), now)
	require.Equal(t, "queued", evs[0].Event)
	require.Equal(t, run.MsgNudge, a.Owed)
	require.Empty(t, apply(r, at(outbox.Queued, "", false), now), "queued once, not every tick")

	evs = apply(r, at(outbox.Queued, outbox.HeldByUser, false), now)
	require.Equal(t, "held", evs[0].Event)
	require.Empty(t, apply(r, at(outbox.Queued, outbox.HeldByUser, false), now))

	evs = apply(r, at(outbox.Delivered, "", false), now)
	require.Equal(t, "delivered", evs[0].Event)
	require.Equal(t, now, a.Memo.NudgedAt, "the judge will not nudge again")
	require.Nil(t, a.Sending)
	require.Empty(t, a.Owed)
	require.Equal(t, run.Running, a.State)
}

func TestAnUndeliverableMessageNeedsTheUser(t *testing.T) {
	now := time.Unix(100, 0)
	r := engineRun(t, "")
	a, _ := r.Task("a")
	a.State, a.Name, a.Attempt = run.Running, "r-a", 1
	nudge := run.Verdict{Action: run.SendMessage, Message: &run.Message{Kind: run.MsgNudge}, Why: "idle without any result"}
	s := run.SendingOf(r, a, *nudge.Message)
	a.Sending = &s
	jv := judged{id: "a", name: "r-a", was: run.Running, v: nudge,
		mail: &mail{msg: outbox.Message{State: outbox.Undeliverable, Why: "Enter did not take"}, sending: s}}

	evs := apply(r, jv, now)
	require.Len(t, evs, 2)
	require.Equal(t, "undeliverable", evs[0].Event)
	require.Equal(t, run.NeedsYou, a.State)
	require.Equal(t, "could not deliver a nudge: Enter did not take", a.Why)
	require.True(t, a.Memo.NudgedAt.IsZero(), "not delivered, not remembered as sent")
	jv.was = run.NeedsYou
	require.Empty(t, apply(r, jv, now), "said once")
}
