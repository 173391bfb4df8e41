package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// outboxMessages are the messages of agent name's outbox file.
func (e *Env) outboxMessages(name string) []struct {
	Kind, Key, State, Why string
} {
	e.t.Helper()
	var all []struct{ Kind, Key, State, Why string }
	files, _ := filepath.Glob(filepath.Join(e.Root, "state", "owt", "outbox", name+"-*.json"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var box struct {
			Messages []struct{ Kind, Key, State, Why string }
		}
		if json.Unmarshal(data, &box) == nil {
			all = append(all, box.Messages...)
		}
	}
	return all
}

// conflictMessage is the conflict reaction's message in name's outbox.
func (e *Env) conflictMessage(name string) (state, why string, ok bool) {
	for _, m := range e.outboxMessages(name) {
		if m.Kind == "reaction conflict" {
			return m.State, m.Why, true
		}
	}
	return "", "", false
}

// A conflict message held while the user is on the agent's pane is taken
// back when the conflict goes away before the user leaves: it is never
// typed, as it would be false by then.
func TestAHeldConflictMessageIsWithdrawnWhenTheConflictGoes(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	e.startAgent(repo, "held", "Edit e\n!write e.txt agent's e\n!commit agent e")
	it := e.Find(repo, "held")
	client, _ := e.attach(it.Session)

	e.commitIn(repo, "e.txt", "main's e\n", "main writes e")
	e.Eventually(60*time.Second, "the conflict message is queued, held for the user", func() bool {
		st, why, ok := e.conflictMessage("held")
		return ok && st == "queued" && strings.Contains(why, "the user is on its pane")
	})
	before := e.prItem(repo, "held").Reactions["conflict"]
	require.Equal(t, 1, before.Attempts)

	e.Git(repo, "revert", "--no-edit", "HEAD")
	e.Eventually(60*time.Second, "the conflict is judged gone", func() bool {
		return e.prItem(repo, "held").Reactions["conflict"].Seen != before.Seen
	})
	st, why, _ := e.conflictMessage("held")
	require.Equal(t, "withdrawn", st, "taken back while still held: %s", why)
	require.Contains(t, why, "conflict")

	e.Tmux("detach-client", "-t", client)
	// The courier looks at the outbox again once the user left: a message
	// still queued would be typed now; give it the chance, then look.
	e.MustOwt(repo, "send", "held", "!write after.txt x")
	e.Eventually(60*time.Second, "the agent took the next text", func() bool { return len(e.promptsWith("held", "after.txt")) == 1 })
	require.Empty(t, e.promptsWith("held", "now conflicts"), "a withdrawn message is never typed")
	st, _, _ = e.conflictMessage("held")
	require.Equal(t, "withdrawn", st)
	got := e.prItem(repo, "held")
	require.Empty(t, got.NeedsYou)
	require.Zero(t, got.Reactions["conflict"].Attempts, "a withdrawn message was no attempt")
}

// An agent that lets a conflict stand, turn after turn, uses up its
// attempts: the conflict then needs the user (owt list, the bar's ▲).
func TestAConflictTheAgentIgnoresNeedsYouAfterMaxAttempts(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.userConfig("[pr]\npoll_interval = \"1s\"\n[reactions.conflict]\nmax_attempts = 2\n")
	e.startAgent(repo, "deaf", "Edit e\n!write e.txt agent's e\n!commit agent e")
	e.commitIn(repo, "e.txt", "main's e\n", "main writes e")

	e.Eventually(90*time.Second, "the conflict needs the user", func() bool {
		return len(e.prItem(repo, "deaf").NeedsYou) > 0
	})
	require.Len(t, e.promptsWith("deaf", "now conflicts with main"), 2, "one message per attempt")
	r := e.prItem(repo, "deaf").Reactions["conflict"]
	require.Equal(t, 2, r.Attempts)
	require.Contains(t, r.NeedsYou, "2 attempt(s) used")
	require.Contains(t, e.MustOwt(repo, "status-line"), "▲")
	// Another turn of the agent, the conflict still there: nothing more
	// goes to it.
	e.MustOwt(repo, "send", "deaf", "!write other.txt x")
	e.Eventually(60*time.Second, "the agent took the next text", func() bool { return len(e.promptsWith("deaf", "other.txt")) == 1 })
	e.WaitStatus(repo, "deaf", "idle", 30*time.Second)
	require.Len(t, e.promptsWith("deaf", "now conflicts with main"), 2)
	require.Len(t, e.prItem(repo, "deaf").NeedsYou, 1)
}
