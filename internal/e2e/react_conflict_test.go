package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// A conflict is one cause however often its base moves for other
// reasons; a conflict message that no longer holds is withdrawn, and one
// the agent ignores needs the user after max attempts.

// A conflict's cause is the conflicting files and the commits that touch
// them: main moving on for unrelated reasons, or the agent committing
// other work, sends nothing new (and burns no attempt); a new commit on
// the conflicting file, on main or the agent's own failed try, does. (The
// first message is held, a client on the agent's pane, while that is
// judged: a conflict the agent lets stand through a turn of its own is
// the next attempt, TestAConflictTheAgentIgnoresNeedsYouAfterMaxAttempts.)
func TestAConflictIsSentOnceWhileItsBaseMovesForUnrelatedReasons(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.userConfig("[pr]\npoll_interval = \"1s\"\n[reactions.conflict]\nmax_attempts = 5\n")
	e.startAgent(repo, "clash", "Edit the readme\n!write README.md\n!commit agent readme")
	client, _ := e.attach(e.Find(repo, "clash").Session)
	e.commitIn(repo, "README.md", "# main's readme\n", "main rewrites the readme")
	e.Eventually(60*time.Second, "the conflict is queued for the agent", func() bool {
		st, _, ok := e.conflictMessage("clash")
		return ok && st == "queued"
	})

	for i := range 3 {
		head := e.commitIn(repo, "unrelated"+itoa(i)+".txt", "news\n", "unrelated news "+itoa(i))
		e.Eventually(60*time.Second, "main's move "+itoa(i)+" is judged", func() bool {
			return strings.Contains(e.prItem(repo, "clash").Reactions["conflict"].Seen, head)
		})
	}
	require.Len(t, e.outboxMessages("clash"), 1, "the same conflict is sent once")
	it := e.prItem(repo, "clash")
	require.Empty(t, it.NeedsYou)
	require.Equal(t, 1, it.Reactions["conflict"].Attempts)

	branch := e.Find(repo, "clash").Branch
	e.MustOwt(repo, "send", "clash", "!write notes.txt\n!commit other work")
	e.Eventually(60*time.Second, "the agent's other work is judged", func() bool {
		head := e.Git(repo, "rev-parse", branch)
		return e.Find(repo, "clash").Status == "idle" && strings.HasPrefix(e.prItem(repo, "clash").Reactions["conflict"].Seen, head)
	})
	require.Len(t, e.outboxMessages("clash"), 1, "other work is not news")
	require.Equal(t, 1, e.prItem(repo, "clash").Reactions["conflict"].Attempts)

	// The user leaves: the first message goes; a new commit on the
	// conflicting file is news.
	e.Tmux("detach-client", "-t", client)
	e.Eventually(60*time.Second, "the first message reaches the agent", func() bool { return len(e.promptsWith("clash", "now conflicts with main")) >= 1 })
	e.commitIn(repo, "README.md", "# main's readme, again\n", "main rewrites the readme again")
	e.Eventually(60*time.Second, "the new conflicting commit reaches the agent", func() bool {
		for _, p := range e.promptsWith("clash", "now conflicts with main") {
			if strings.Contains(p, "main rewrites the readme again") {
				return true
			}
		}
		return false
	})

	// The agent's try at the file that still conflicts is a new cause (the
	// turns it had on the same one are counted too: the signature says
	// which cause was acted on last).
	before := e.prItem(repo, "clash").Reactions["conflict"].Signature
	e.MustOwt(repo, "send", "clash", "!write README.md a second try\n!commit a failed try")
	e.Eventually(60*time.Second, "the failed try is a new cause", func() bool {
		return e.prItem(repo, "clash").Reactions["conflict"].Signature != before
	})
}

// ghLoggedOut is gh's answer when it is not logged in (exit 4).
var ghLoggedOut = fixture.GhFixture{Args: []string{"pr", "view"}, Stderr: "To get started with GitHub CLI, please run:  gh auth login\n", Exit: 4}

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
	require.Len(t, logLinesWith(e.LogLines("monitor"), "reaction conflict deaf: needs you"), 1, "escalated (and told) once")
}
