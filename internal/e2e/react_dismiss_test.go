package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// owt dismiss (and a in the control popup): the user takes over a
// reaction that escalated. It stops needing them at once (owt list, the
// status bar, the control plane); the same cause is not sent again; a new
// cause goes to the agent again with a fresh budget of attempts.

// failingHead makes the fake gh show PR 7 at head with its test check
// failing in Actions run run, whose failed log names test.
func (e *Env) failingHead(head string, run int, test string) {
	e.t.Helper()
	e.SetGh(fixture.GhFixture{Args: []string{"run", "view", itoa(run)}, Stdout: "--- FAIL: " + test + "\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView(head, "", checkRun("test", "COMPLETED", "FAILURE", run))})
}

// statusLine is the status bar's text as owt published it.
func (e *Env) statusLine() string {
	return e.Tmux("show-options", "-gv", "@owt-status-line")
}

// escalate fails a new head (a new cause with the attempts used up) and
// waits until ci_failed of name needs the user and the bar names it.
func (e *Env) escalate(repo, name, head string, run int) {
	e.t.Helper()
	e.failingHead(head, run, "TestEscalated")
	e.Eventually(60*time.Second, name+" needs you", func() bool { return len(e.prItem(repo, name).NeedsYou) == 1 })
	e.Eventually(10*time.Second, "the status bar names it", func() bool { return strings.Contains(e.statusLine(), "▲ "+name) })
}

func TestDismissStopsAnEscalatedReactionNeedingYouAndANewCauseGetsFreshAttempts(t *testing.T) {
	e := newQuietEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n[reactions.ci_failed]\nmax_attempts = 1\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.failingHead("aaaaaaa1", 101, "TestAlpha")
	e.PrependGh(createFixture)
	e.agentWithPR(repo, "ci")
	e.Eventually(60*time.Second, "the first failure reaches the agent", func() bool { return len(e.promptsWith("ci", "CI fails")) == 1 })

	e.escalate(repo, "ci", "bbbbbbb2", 102)
	before := e.prItem(repo, "ci").Reactions["ci_failed"]
	require.Equal(t, 1, before.Attempts)

	// Bad input changes nothing.
	r := e.Owt(repo, "dismiss")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "dismiss takes a NAME")
	r = e.Owt(repo, "dismiss", "ci", "ci_fail")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, `unknown reaction "ci_fail" (one of checks_failed, ci_failed, changes_requested, conflict, message_loop)`)
	r = e.Owt(repo, "dismiss", "nosuch", "ci_failed")
	require.Equal(t, 3, r.Code)
	require.Contains(t, r.Stderr, `no such worktree "nosuch"`)
	r = e.Owt(repo, "dismiss", "ci", "conflict")
	require.Equal(t, 1, r.Code)
	require.Equal(t, "owt: conflict of ci does not need you\n", r.Stderr)
	require.Len(t, e.prItem(repo, "ci").NeedsYou, 1, "nothing changed")

	// Dismissed: at once off the list, the bar and owt list's needs you.
	out := e.MustOwt(repo, "dismiss", "ci", "ci_failed")
	require.Equal(t, "dismissed ci_failed for ci (was: 1 attempt(s) used, still failing: test failed on bbbbbbb)\n", out)
	it := e.prItem(repo, "ci")
	require.Empty(t, it.NeedsYou)
	require.Equal(t, 0, it.Reactions["ci_failed"].Attempts, "a fresh budget")
	require.Equal(t, before.Signature, it.Reactions["ci_failed"].Signature, "the cause is remembered")
	require.NotContains(t, e.statusLine(), "▲", "the bar no longer counts it")
	require.NotContains(t, e.MustOwt(repo, "list"), "needs you")

	r = e.Owt(repo, "dismiss", "ci", "ci_failed")
	require.Equal(t, 1, r.Code)
	require.Equal(t, "owt: ci_failed of ci does not need you\n", r.Stderr)
	r = e.Owt(repo, "dismiss", "ci")
	require.Equal(t, 1, r.Code)
	require.Equal(t, "owt: no reaction of ci needs you\n", r.Stderr)

	// The same failing head, polled again: nothing more.
	polls := len(e.GhCalls("pr", "view"))
	e.Eventually(30*time.Second, "two more polls", func() bool { return len(e.GhCalls("pr", "view")) >= polls+2 })
	require.Len(t, e.promptsWith("ci", "CI fails"), 1, "the dismissed cause is not sent")
	require.Empty(t, e.prItem(repo, "ci").NeedsYou)
	require.Len(t, e.GhCalls("run", "view", "102"), 1, "its log is not read again")

	// A new failing head: the agent is told again.
	e.failingHead("ccccccc3", 103, "TestGamma")
	e.Eventually(60*time.Second, "the new failure reaches the agent", func() bool { return len(e.promptsWith("ci", "CI fails")) == 2 })
	require.Contains(t, e.promptsWith("ci", "CI fails")[1], "--- FAIL: TestGamma")
	require.Equal(t, 1, e.prItem(repo, "ci").Reactions["ci_failed"].Attempts)
	require.Empty(t, e.prItem(repo, "ci").NeedsYou)

	// Escalated again: a in the control popup dismisses it the same way.
	e.escalate(repo, "ci", "ddddddd4", 104)
	p := e.pane(repo, owtBin, "popup", "control")
	e.Eventually(15*time.Second, "ci under NEEDS YOU", func() bool { return sectionOf(e.Capture(p), "ci") == "NEEDS YOU" })
	e.selectRow(p, "ci")
	require.Contains(t, e.Capture(p), "a dismiss")
	e.keys(p, "a")
	e.Eventually(15*time.Second, "ci no longer needs you in the popup", func() bool {
		s := e.Capture(p)
		return strings.Contains(s, "dismissed ci_failed for ci") && sectionOf(s, "ci") != "NEEDS YOU"
	})
	require.Empty(t, e.prItem(repo, "ci").NeedsYou)
	require.NotContains(t, e.statusLine(), "▲")
	e.keys(p, "q")

	// And --json, for every escalated reaction of the worktree.
	e.failingHead("eeeeeee5", 105, "TestEpsilon")
	e.Eventually(60*time.Second, "the next failure reaches the agent", func() bool { return len(e.promptsWith("ci", "CI fails")) == 3 })
	e.escalate(repo, "ci", "fffffff6", 106)
	var d struct {
		Name      string
		Dismissed []struct{ Reaction, Was string }
		NotNeeded []string `json:"not_needed"`
	}
	out = e.MustOwt(repo, "dismiss", "ci", "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &d), out)
	require.Equal(t, "ci", d.Name)
	require.Len(t, d.Dismissed, 1, out)
	require.Equal(t, "ci_failed", d.Dismissed[0].Reaction)
	require.Contains(t, d.Dismissed[0].Was, "test failed on fffffff")
	require.Empty(t, d.NotNeeded)
	require.Empty(t, e.prItem(repo, "ci").NeedsYou)
}

// Shell completion (owt completion bash asks owt with the words typed so
// far, the word under the cursor, "" here, and --generate-bash-completion
// last): NAME, then the reactions.
func TestDismissCompletesNamesThenReactions(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "feat", "Add a feature")
	require.Equal(t, "feat\n", e.MustOwt(repo, "dismiss", "", "--generate-bash-completion"))
	require.Equal(t, "checks_failed\nci_failed\nchanges_requested\nconflict\nmessage_loop\n", e.MustOwt(repo, "dismiss", "feat", "", "--generate-bash-completion"))
	require.Equal(t, "feat\n", e.MustOwt(repo, "pr", "", "--generate-bash-completion"))
}
