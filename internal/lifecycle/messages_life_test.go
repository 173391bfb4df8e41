package lifecycle

import (
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/state"
)

// owt list counts an agent's messages by the rule check_messages and owt
// messages read them by (outbox.Since): a record from before lives counts
// only what was queued since it was made (the rest was earlier agents' of
// its name), unless it was rebuilt after its state file was lost, when its
// own mail is older than its record.
func TestListCountsTheMessagesCheckMessagesReads(t *testing.T) {
	t.Cleanup(xdg.Reload) // after the variable is restored: no later test writes here
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start: without this the messages went to an earlier test's removed temp dir, made again and left in /tmp
	repo := "/repo"
	made := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	box := outbox.Default()
	for _, name := range []string{"old", "rebuilt", "lived"} {
		a := outbox.Agent{Repo: repo, Name: name}
		if name == "lived" {
			a.Life = "aaaa"
		}
		_, _, err := box.Enqueue(a, outbox.Message{Kind: outbox.KindPeer, Key: "k1", From: "x", Text: "[from x] earlier"}, made.Add(-time.Hour))
		require.NoError(t, err)
		_, _, err = box.Enqueue(a, outbox.Message{Kind: outbox.KindPeer, Key: "k2", From: "x", Text: "[from x] later"}, made.Add(time.Minute))
		require.NoError(t, err)
	}
	recs := []*state.Record{
		{Name: "old", Repo: repo, CreatedAt: made},
		{Name: "rebuilt", Repo: repo, CreatedAt: made, Recovered: true},
		{Name: "lived", Repo: repo, Life: "aaaa", CreatedAt: made},
	}
	items := make([]Item, len(recs))
	for i, r := range recs {
		items[i] = Item{Name: r.Name, Repo: r.Repo, Life: r.Life, CreatedAt: r.CreatedAt}
	}
	addMessages(items, recs)
	for i, r := range recs {
		msgs, err := box.Read(outbox.Of(r), outbox.KindPeer, outbox.Since(r), made.Add(time.Hour))
		require.NoError(t, err)
		require.Equal(t, len(msgs), items[i].Messages.Received, "%s: owt list counts other messages than check_messages reads", r.Name)
	}
	require.Equal(t, 1, items[0].Messages.Received, "a record from before lives: an earlier agent's mail is not its")
	require.Equal(t, 2, items[1].Messages.Received, "a rebuilt record keeps its mail from before its rebuild")
	require.Equal(t, 2, items[2].Messages.Received, "a life's file is its own from the start")
}
