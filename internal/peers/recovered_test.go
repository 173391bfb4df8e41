package peers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/state"
)

// A record rebuilt after its state file was lost is "made" at the
// rebuild: the mail queued for its agent before that is still its own,
// queued (the courier types it), not a deleted agent's.
func TestLogOfARebuiltRecordKeepsItsEarlierMail(t *testing.T) {
	box := outbox.Box{Dir: t.TempDir()}
	now := time.Now()
	for _, life := range []string{"0123456789abcdef", ""} {
		rec := &state.Record{Name: "b", Repo: "/repo", Life: life, CreatedAt: now, Recovered: true}
		_, _, err := box.Enqueue(outbox.Of(rec), outbox.Message{Kind: outbox.KindPeer, Key: "k" + life, From: "a", Text: "[from a] hello"}, now.Add(-time.Minute))
		require.NoError(t, err)
		log, err := Log(box, []*state.Record{rec}, "")
		require.NoError(t, err)
		var mine []Entry
		for _, e := range log {
			if e.ID == "k"+life {
				mine = append(mine, e)
			}
		}
		require.Len(t, mine, 1, "life %q: %+v", life, log)
		require.False(t, mine[0].Former, "life %q: the rebuilt b's own mail is said to be a deleted agent's", life)
		require.Equal(t, "queued", mine[0].State, "life %q", life)
	}
}
