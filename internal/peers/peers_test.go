package peers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
	"github.com/owt-tmux/owt/internal/workspace/worldtest"
)

// agents makes a world with one idle agent per name (claude on PATH,
// never run: the world's stand-in is owt's runner).
func agents(t *testing.T, names ...string) (*worldtest.World, *workspace.Workspace) {
	t.Helper()
	w := worldtest.New(t)
	ws := w.Workspace()
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, n := range names {
		_, err := lifecycle.Of(ws).Create(lifecycle.CreateOptions{Task: "work on " + n, Name: n, Tool: "claude", NoSetup: true})
		require.NoError(t, err)
	}
	setStatus(t, ws, state.Idle, names...)
	return w, ws
}

func setStatus(t *testing.T, ws *workspace.Workspace, s state.Status, names ...string) {
	t.Helper()
	require.NoError(t, ws.Store.Update(func(f *state.File) error {
		for _, n := range names {
			f.Records[n].Status = s
		}
		return nil
	}))
}

func open(t *testing.T, ws *workspace.Workspace, name string) *Peers {
	t.Helper()
	p, err := Open(ws, name)
	require.NoError(t, err)
	p.DeliverWait = 0 // no courier here: a message stays queued
	return p
}

func write(t *testing.T, ws *workspace.Workspace, name, file, body string) {
	t.Helper()
	rec, err := ws.Get(name)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(rec.Path, file), []byte(body), 0o644))
}

func TestListPeersShowsTheOthersWithTheirFilesAndTheOverlapWithMine(t *testing.T) {
	_, ws := agents(t, "a", "b", "c")
	write(t, ws, "a", "shared.go", "package a\n")
	write(t, ws, "b", "shared.go", "package b\n")
	write(t, ws, "b", "only-b.go", "package b\n")
	write(t, ws, "c", "only-c.go", "package c\n")

	list, err := open(t, ws, "a").List()
	require.NoError(t, err)
	require.Len(t, list, 2, "every other agent, not me")
	b, c := list[0], list[1]
	require.Equal(t, "b", b.Name)
	require.Equal(t, "claude", b.Tool)
	require.Equal(t, "idle", b.Status)
	require.Equal(t, "work on b", b.Task.Line())
	require.ElementsMatch(t, []string{"shared.go", "only-b.go"}, b.Files)
	require.Equal(t, []string{"shared.go"}, b.Overlap)
	require.Equal(t, "c", c.Name)
	require.Equal(t, []string{"only-c.go"}, c.Files)
	require.Empty(t, c.Overlap)
}

func TestOpenIsOnlyForAnAgentOfTheRepository(t *testing.T) {
	_, ws := agents(t, "a")
	_, err := Open(ws, "")
	require.ErrorIs(t, err, ErrNoIdentity)
	_, err = Open(ws, "nobody")
	require.ErrorIs(t, err, workspace.ErrUnknownName)
}

func TestSendQueuesSignedMessagesAndCheckReadsThemOnce(t *testing.T) {
	_, ws := agents(t, "a", "b")
	a := open(t, ws, "a")
	sent, err := a.Send("b", "I am changing shared.go: leave it to me")
	require.NoError(t, err)
	require.Len(t, sent, 1)
	require.Equal(t, Queued, sent[0].Result, "no courier ran: queued, not delivered")
	require.NotEmpty(t, sent[0].ID)
	require.Contains(t, sent[0].Why, "idle")
	_, err = a.Send("b", "second")
	require.NoError(t, err)

	q, err := outbox.Default().Queued(outbox.Agent{Repo: ws.Repo.Root, Name: "b"})
	require.NoError(t, err)
	require.Len(t, q, 2)
	require.Equal(t, "[from a] I am changing shared.go: leave it to me", q[0].Text, "the courier types it signed")

	b := open(t, ws, "b")
	got, err := b.Check()
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "a", got[0].From)
	require.Equal(t, "I am changing shared.go: leave it to me", got[0].Text.Block())
	require.True(t, got[0].New)
	require.Equal(t, "queued", got[0].State)
	again, err := b.Check()
	require.NoError(t, err)
	require.Len(t, again, 2, "read messages are still listed")
	require.False(t, again[0].New, "and marked read")

	mine, err := a.Check()
	require.NoError(t, err)
	require.Empty(t, mine, "a's own messages are b's")

	log, err := Log(outbox.Default(), []*state.Record{mustGet(t, ws, "a"), mustGet(t, ws, "b")}, "")
	require.NoError(t, err)
	require.Len(t, log, 2)
	require.Equal(t, "a", log[0].From)
	require.Equal(t, "b", log[0].To)
}

func mustGet(t *testing.T, ws *workspace.Workspace, name string) *state.Record {
	t.Helper()
	r, err := ws.Get(name)
	require.NoError(t, err)
	return r
}

func TestTheLoopGuardDropsRepeatsAndRefusesPastTheLimit(t *testing.T) {
	_, ws := agents(t, "a", "b", "c")
	ws.Config.MCP.MessageLimit = 3
	a := open(t, ws, "a")
	for i, msg := range []string{"one", "two"} {
		sent, err := a.Send("b", msg)
		require.NoError(t, err)
		require.Equal(t, Queued, sent[0].Result, "message %d", i)
	}
	sent, err := a.Send("b", "two")
	require.NoError(t, err)
	require.Equal(t, Repeat, sent[0].Result, "the same text again is a repeat")
	sent, err = a.Send("b", "three")
	require.NoError(t, err)
	require.Equal(t, Queued, sent[0].Result)
	sent, err = a.Send("b", "four")
	require.NoError(t, err)
	require.Equal(t, Refused, sent[0].Result, "past the limit")
	require.Contains(t, sent[0].Why, "NEEDS YOU")

	q, err := outbox.Default().Queued(outbox.Agent{Repo: ws.Repo.Root, Name: "b"})
	require.NoError(t, err)
	require.Len(t, q, 3, "neither the repeat nor the refused one was queued")
	loops := outbox.Default().Loops(time.Now(), time.Hour)
	require.Len(t, loops, 1)
	require.Equal(t, "a", loops[0].From)
	require.Equal(t, "b", loops[0].To)

	sent, err = a.Send("c", "four")
	require.NoError(t, err)
	require.Equal(t, Queued, sent[0].Result, "the limit is per peer")
	sent, err = open(t, ws, "c").Send("b", "hi")
	require.NoError(t, err)
	require.Equal(t, Queued, sent[0].Result, "and per sender")
}

func TestSendRefusesBadInputAndQueuesNothing(t *testing.T) {
	_, ws := agents(t, "a", "b", "gone")
	setStatus(t, ws, state.Exited, "gone")
	a := open(t, ws, "a")
	for _, c := range []struct {
		to, text string
		want     error
	}{
		{"nobody", "hi", ErrUnknownPeer},
		{"a", "hi", ErrUnknownPeer},
		{"b", "   ", ErrBadText},
		{"b", strings.Repeat("x", MaxText+1), ErrBadText},
		{"gone", "hi", ErrPeerExited},
	} {
		_, err := a.Send(c.to, c.text)
		require.ErrorIs(t, err, c.want, "to %q", c.to)
	}
	agents, err := outbox.Default().Pending()
	require.NoError(t, err)
	require.Empty(t, agents, "nothing queued")

	sent, err := a.Send(All, "to everyone")
	require.NoError(t, err)
	require.Len(t, sent, 1, "all: the live peers only")
	require.Equal(t, "b", sent[0].To)
}

func TestSpawnStartsExecutorsUpToTheLimitAndNoDeeper(t *testing.T) {
	_, ws := agents(t, "lead")
	ws.Config.MCP.MaxSpawned = 2
	lead := open(t, ws, "lead")
	for _, n := range []string{"ex1", "ex2"} {
		rec, err := lead.Spawn(SpawnOptions{Task: "build " + n, Name: n})
		require.NoError(t, err)
		require.Equal(t, "lead", rec.Spawner)
		require.Equal(t, 1, rec.SpawnDepth)
		require.Contains(t, rec.Task, `send_message, to: "lead"`, "told to report back")
		require.Equal(t, "feat/lead", mustGet(t, ws, "lead").Branch[:len("feat/lead")], "sanity")
		require.Equal(t, mustGet(t, ws, "lead").Branch, rec.Base, "from the spawner's branch")
	}
	_, err := lead.Spawn(SpawnOptions{Task: "one more", Name: "ex3"})
	require.ErrorIs(t, err, ErrSpawnLimit)
	_, err = ws.Get("ex3")
	require.ErrorIs(t, err, workspace.ErrUnknownName, "nothing made")

	setStatus(t, ws, state.Exited, "ex1")
	_, err = lead.Spawn(SpawnOptions{Task: "one more", Name: "ex3"})
	require.NoError(t, err, "an exited executor frees its place")

	_, err = open(t, ws, "ex2").Spawn(SpawnOptions{Task: "deeper", Name: "ex4"})
	require.ErrorIs(t, err, ErrSpawnLimit, "executors cannot spawn at spawn_depth 1")
	require.Contains(t, err.Error(), "spawn_depth")
}
