package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A message queued for an agent that is then deleted is its, not its
// name's: the next agent given the name never gets it, and owt messages
// shows it undeliverable, to the deleted agent.
func TestMailOfADeletedAgentNeverReachesTheNextOfItsName(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "a", "Task a")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "b", "!sleep 30")
	e.Eventually(30*time.Second, "a idle", func() bool { return e.Find(repo, "a").Status == "idle" })
	e.Eventually(30*time.Second, "b working", func() bool { return e.Find(repo, "b").Status == "working" })
	cs := e.mcpAs("a", e.Find(repo, "a").Repo)
	out, isErr := call(t, cs, "send_message", map[string]any{"to": "b", "text": "for the first b"})
	require.False(t, isErr, out)
	require.Contains(t, out, `"result": "queued"`, "b is working: not typed now")

	e.MustOwt(repo, "delete", "b", "--force", "--yes")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "b", "Task b2")
	e.Eventually(30*time.Second, "the new b idle", func() bool { return e.Find(repo, "b").Status == "idle" })
	out, isErr = call(t, cs, "send_message", map[string]any{"to": "b", "text": "for the second b"})
	require.False(t, isErr, out)
	e.Eventually(60*time.Second, "the new b got its message", func() bool { return len(e.promptsWith("b", "[from a] for the second b")) == 1 })

	prompts := e.Prompts("b")
	i := slices.Index(prompts, "Task b2")
	require.GreaterOrEqual(t, i, 0, "%q", prompts)
	for _, p := range prompts[i:] {
		require.NotContains(t, p, "for the first b", "the first b's message was typed into the second")
	}

	var log []struct {
		To, Text, State string
		Former          bool
	}
	// The courier settles a message delivered a moment after the agent
	// took it: wait for that, not just for the prompt.
	e.Eventually(30*time.Second, "the second message settled delivered", func() bool {
		log = nil
		require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "messages", "b", "--json")), &log))
		return len(log) == 2 && log[1].State == "delivered"
	})
	require.Len(t, log, 2, "%+v", log)
	require.Equal(t, "for the first b", log[0].Text)
	require.Equal(t, "undeliverable", log[0].State)
	require.True(t, log[0].Former, "it was for the deleted b")
	require.Equal(t, "for the second b", log[1].Text)
	require.Equal(t, "delivered", log[1].State)
	require.False(t, log[1].Former)
	text := e.MustOwt(repo, "messages", "b")
	require.Contains(t, text, "b (deleted)")
	require.True(t, strings.Contains(text, "undeliverable"), text)
}

// A record rebuilt after its state file was lost is the same agent: its
// life comes back from its session, so its mail and usage stay its own.
func TestARebuiltRecordKeepsItsLife(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "keep", "Keep me")
	e.Eventually(30*time.Second, "keep idle", func() bool { return e.Find(repo, "keep").Status == "idle" })
	lifeOf := func() string {
		var items []struct{ Name, Life string }
		require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "list", "--json")), &items))
		require.Len(t, items, 1)
		return items[0].Life
	}
	life := lifeOf()
	require.NotEmpty(t, life, "every agent has a life")
	e.listAfterCorruptState(repo)
	require.Equal(t, life, lifeOf())
}
