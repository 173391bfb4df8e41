package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
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
	require.Len(t, logLinesWith(e.LogLines("monitor"), "reaction conflict deaf: needs you"), 1, "escalated (and told) once")
}

// gh not logged in, then answering with another failure: the PR state is
// stale for the latest reason, and stays so (it was rewritten back to "not
// logged in" between polls, a state write a second).
func TestAStalePRSaysTheLatestFailureOnceGhIsLoggedInAgain(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.SetGh(createFixture, fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checkRun("test", "QUEUED", "", 1))})
	e.agentWithPR(repo, "flip")
	e.Eventually(30*time.Second, "polled", func() bool { return e.prItem(repo, "flip").PR.Checks == "pending" })

	e.SetGh(fixture.GhFixture{Args: []string{"pr", "view"}, Stderr: "To get started with GitHub CLI, please run:  gh auth login\n", Exit: 4})
	e.Eventually(60*time.Second, "stale: not logged in", func() bool {
		return strings.Contains(e.MustOwt(repo, "list"), "stale: gh is not logged in")
	})

	e.SetGh(fixture.GhFixture{Args: []string{"pr", "view"}, Stderr: "HTTP 502: Bad Gateway (https://api.github.com/graphql)\n", Exit: 1})
	e.Eventually(60*time.Second, "stale: the 502", func() bool { return strings.Contains(e.MustOwt(repo, "list"), "HTTP 502") })
	// From now on every look says the 502, through the next polls.
	polls := len(e.GhCalls("pr", "view"))
	e.Eventually(90*time.Second, "two more polls, every look saying the 502", func() bool {
		out := e.MustOwt(repo, "list")
		require.NotContains(t, out, "not logged in", "gh answered since")
		require.Contains(t, out, "HTTP 502")
		return len(e.GhCalls("pr", "view")) >= polls+2
	})
	doc := e.Owt(repo, "doctor")
	require.Contains(t, doc.Stdout, "the pull request state of flip is stale: gh pr view: HTTP 502")
	require.NotContains(t, doc.Stdout, "not logged in")
}

// Thirty failing checks: the message names every one (the first 20, then
// how many more), and reads only the logs it has room for.
func TestManyFailingChecksAreAllNamedAndOnlyTheLogsThatFitAreRead(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	var checks []map[string]any
	for i := 1; i <= 30; i++ {
		checks = append(checks, checkRun(fmt.Sprintf("check-%02d", i), "COMPLETED", "FAILURE", 200+i))
	}
	var log strings.Builder
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&log, "test\tRun go test\t--- FAIL: TestNumber%02d (0.01s) something went wrong here\n", i)
	}
	e.SetGh(createFixture, fixture.GhFixture{Args: []string{"run", "view"}, Stdout: log.String()},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checks...)})
	e.agentWithPR(repo, "many")

	e.Eventually(60*time.Second, "the CI failure reaches the agent", func() bool { return len(e.promptsWith("many", "CI fails")) == 1 })
	msg := e.promptsWith("many", "CI fails")[0]
	for i := 1; i <= 20; i++ {
		require.Contains(t, msg, fmt.Sprintf("✗ check-%02d (CI)", i))
	}
	require.NotContains(t, msg, "check-21 (CI)")
	require.Contains(t, msg, "and 10 more failing checks")
	require.Contains(t, msg, "TestNumber59", "a log's tail")
	require.LessOrEqual(t, len(msg), 9<<10, "bounded")
	calls := len(e.GhCalls("run", "view"))
	require.GreaterOrEqual(t, calls, 1)
	require.LessOrEqual(t, calls, 3, "only the logs that can fit are read")
}

// A CI failure held for the user is withdrawn when a re-run passes.
func TestAHeldCIFailureIsWithdrawnWhenCIPassesAfterARerun(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.SetGh(createFixture, fixture.GhFixture{Args: []string{"run", "view"}, Stdout: "--- FAIL: TestFlaky\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checkRun("test", "COMPLETED", "FAILURE", 301))})
	e.agentWithPR(repo, "rerun")
	client, _ := e.attach(e.Find(repo, "rerun").Session)
	e.Eventually(60*time.Second, "the CI failure is queued, held for the user", func() bool {
		for _, m := range e.outboxMessages("rerun") {
			if m.Kind == "reaction ci_failed" && m.State == "queued" {
				return true
			}
		}
		return false
	})

	e.SetGh(fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checkRun("test", "COMPLETED", "SUCCESS", 302))})
	e.Eventually(60*time.Second, "the CI failure message is withdrawn", func() bool {
		for _, m := range e.outboxMessages("rerun") {
			if m.Kind == "reaction ci_failed" && m.State == "withdrawn" {
				return true
			}
		}
		return false
	})
	e.Tmux("detach-client", "-t", client)
	e.MustOwt(repo, "send", "rerun", "!write after.txt x")
	e.Eventually(60*time.Second, "the agent took the next text", func() bool { return len(e.promptsWith("rerun", "after.txt")) == 1 })
	require.Empty(t, e.promptsWith("rerun", "CI fails"), "never typed")
	require.Zero(t, e.prItem(repo, "rerun").Reactions["ci_failed"].Attempts)
}
