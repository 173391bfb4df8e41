package outbox

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAWithdrawnMessageIsNeverTakenForTyping(t *testing.T) {
	b := Box{Dir: t.TempDir()}
	_, _, err := b.Enqueue(app, Message{Kind: "reaction conflict", Key: "k1", Text: "conflict"}, t0)
	require.NoError(t, err)

	ok, err := b.Withdraw(app, "reaction conflict", "k1", "the conflict is gone")
	require.NoError(t, err)
	require.True(t, ok)
	got, err := b.Take(app, t0)
	require.NoError(t, err)
	require.Empty(t, got, "nothing left to type")
	m, _, err := b.Lookup(app, "reaction conflict", "k1")
	require.NoError(t, err)
	require.Equal(t, Withdrawn, m.State)
	require.Equal(t, "the conflict is gone", m.Why)

	ok, err = b.Withdraw(app, "reaction conflict", "k1", "again")
	require.NoError(t, err)
	require.False(t, ok, "once")
}

func TestAMessageBeingTypedIsNotWithdrawnUntilGivenBack(t *testing.T) {
	b := Box{Dir: t.TempDir()}
	_, _, err := b.Enqueue(app, Message{Kind: "reaction conflict", Key: "k1", Text: "conflict"}, t0)
	require.NoError(t, err)
	taken, err := b.Take(app, t0)
	require.NoError(t, err)
	require.Len(t, taken, 1)

	ok, err := b.Withdraw(app, "reaction conflict", "k1", "gone")
	require.NoError(t, err)
	require.False(t, ok, "the courier may be typing it")
	require.NoError(t, b.Settle(app, taken, Delivered, t0, ""))
	m, _, _ := b.Lookup(app, "reaction conflict", "k1")
	require.Equal(t, Delivered, m.State, "what was typed is said delivered")

	_, _, err = b.Enqueue(app, Message{Kind: "reaction conflict", Key: "k2", Text: "conflict"}, t0)
	require.NoError(t, err)
	taken, err = b.Take(app, t0)
	require.NoError(t, err)
	require.NoError(t, b.Release(app, taken))
	ok, err = b.Withdraw(app, "reaction conflict", "k2", "gone")
	require.NoError(t, err)
	require.True(t, ok, "given back untyped, it can be withdrawn")
}
