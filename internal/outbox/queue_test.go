package outbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	t0  = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	app = Agent{Repo: "/src/app", Name: "g-a"}
)

func TestEnqueueTheSameKindAndKeyTwiceIsANoOp(t *testing.T) {
	b := Box{Dir: t.TempDir()}
	m, added, err := b.Enqueue(app, Message{Kind: "checks", Key: "tree 1", Text: "fix it"}, t0)
	require.NoError(t, err)
	require.True(t, added)
	require.Equal(t, Queued, m.State)

	again, added, err := b.Enqueue(app, Message{Kind: "checks", Key: "tree 1", Text: "other text"}, t0.Add(time.Minute))
	require.NoError(t, err)
	require.False(t, added, "same agent, kind and key")
	require.Equal(t, "fix it", again.Text, "the first one stands")
	require.Equal(t, t0, again.QueuedAt)

	_, added, err = b.Enqueue(app, Message{Kind: "checks", Key: "tree 2", Text: "fix it again"}, t0)
	require.NoError(t, err)
	require.True(t, added, "another tree is another message")
	_, added, err = b.Enqueue(Agent{Repo: "/src/other", Name: "g-a"}, Message{Kind: "checks", Key: "tree 1"}, t0)
	require.NoError(t, err)
	require.True(t, added, "the same name in another repo is another agent")

	// Settled, it still dedupes: a message goes once.
	q, err := b.Queued(app)
	require.NoError(t, err)
	require.NoError(t, b.Settle(app, q, Delivered, t0, ""))
	_, added, err = b.Enqueue(app, Message{Kind: "checks", Key: "tree 1", Text: "fix it"}, t0)
	require.NoError(t, err)
	require.False(t, added)

	_, _, err = b.Enqueue(app, Message{Kind: "nudge"}, t0)
	require.Error(t, err, "a message without a key cannot be deduplicated")
}

func TestQueuedMessagesJoinAsOnePasteInOrder(t *testing.T) {
	b := Box{Dir: t.TempDir()}
	for _, m := range []Message{
		{Kind: "nudge", Key: "1", Text: "If finished, run owt done."},
		{Kind: "commit", Key: "1", Text: "  Commit your work.\n"},
		{Kind: "checks", Key: "t", Text: "checks fail:\n$ go test\nFAIL"},
	} {
		_, _, err := b.Enqueue(app, m, t0)
		require.NoError(t, err)
	}
	q, err := b.Queued(app)
	require.NoError(t, err)
	require.Equal(t, "If finished, run owt done.\n\nCommit your work.\n\nchecks fail:\n$ go test\nFAIL", Join(q))

	require.NoError(t, b.Settle(app, q[:1], Undeliverable, t0, "Enter did not take"))
	q, err = b.Queued(app)
	require.NoError(t, err)
	require.Len(t, q, 2, "settled messages leave the queue")
	m, ok, err := b.Lookup(app, "nudge", "1")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, Undeliverable, m.State)
	require.Equal(t, "Enter did not take", m.Why)
}

func TestTheOutboxSurvivesAReopen(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Box{Dir: dir}.Enqueue(app, Message{Kind: "nudge", Key: "1", Text: "hello", From: "run g, task a"}, t0)
	require.NoError(t, err)
	require.NoError(t, Box{Dir: dir}.Hold(app, HeldByUser))

	b := Box{Dir: dir} // another process, later
	q, err := b.Queued(app)
	require.NoError(t, err)
	require.Len(t, q, 1)
	require.Equal(t, "hello", q[0].Text)
	require.Equal(t, HeldByUser, q[0].Why)
	agents, err := b.Pending()
	require.NoError(t, err)
	require.Equal(t, []Agent{app}, agents)

	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	fi, err := os.Stat(files[0])
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// A corrupt file is an error naming it, and holds no other agent back.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken-0.json"), []byte("{"), 0o600))
	agents, err = b.Pending()
	require.ErrorContains(t, err, "broken-0.json")
	require.Equal(t, []Agent{app}, agents)
	_, err = b.Pending()
	require.NoError(t, err, "said once: the file is set aside")

	// An agent's own corrupt file reads as empty and is set aside by the
	// next message, which is queued afresh: the agent is not stuck.
	require.NoError(t, os.WriteFile(b.path(app), []byte("not json {"), 0o600))
	q, err = b.Queued(app)
	require.NoError(t, err)
	require.Empty(t, q)
	_, added, err := b.Enqueue(app, Message{Kind: "nudge", Key: "k2", Text: "again"}, time.Unix(300, 0))
	require.NoError(t, err)
	require.True(t, added)
	aside, _ := filepath.Glob(b.path(app) + ".corrupt-*")
	require.Len(t, aside, 1, "the corrupt file is kept for the user")
}
