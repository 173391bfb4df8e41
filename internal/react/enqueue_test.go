package react

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/state"
)

// A message still queued under the key is the one an earlier try queued
// before its record failed to be written: counted, not queued twice. One
// delivered long ago under the key does not stand for a new one.
func TestEnqueueCountsAQueuedMessageOnceAndNeverReusesADeliveredOne(t *testing.T) {
	x := &Reactor{Box: outbox.Box{Dir: t.TempDir()}}
	rec := &state.Record{Repo: "/r", Name: "a"}
	a := outbox.Agent{Repo: "/r", Name: "a"}
	f := failure{reaction: config.CIFailed, data: MessageData{Reaction: config.CIFailed, Failure: "boom"}}
	now := time.Unix(1000, 0)

	key, err := x.enqueue(rec, f, config.Reaction{Action: "send"}, "k#1", now)
	require.NoError(t, err)
	require.Equal(t, "k#1", key)
	key, err = x.enqueue(rec, f, config.Reaction{Action: "send"}, "k#1", now)
	require.NoError(t, err)
	require.Equal(t, "k#1", key, "the queued one is this attempt's")
	queued, err := x.Box.Queued(a)
	require.NoError(t, err)
	require.Len(t, queued, 1)

	require.NoError(t, x.Box.Settle(a, queued, outbox.Delivered, now, ""))
	key, err = x.enqueue(rec, f, config.Reaction{Action: "send"}, "k#1", now.Add(time.Hour))
	require.NoError(t, err)
	require.NotEqual(t, "k#1", key, "a fresh key")
	queued, err = x.Box.Queued(a)
	require.NoError(t, err)
	require.Len(t, queued, 1, "a new message is queued")
	require.Equal(t, key, queued[0].Key)
}
