package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

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

// gh logging out does not turn the PR reactions off for good: owt list,
// the control plane and owt doctor say the PR state is stale and why, the
// monitor tries again with backoff, and once gh answers the reactions run
// again without a restart.
func TestGhNotLoggedInIsSaidWhereYouLookAndRetriedUntilGhAnswers(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("app")
	e.soloWithPR(repo, prView("aaaaaaa1", "", checkRun("test", "IN_PROGRESS", "", 101)))
	e.Eventually(60*time.Second, "the first poll", func() bool {
		pr := e.prItem(repo, "solo").PR
		return pr != nil && pr.Checks == "pending"
	})
	e.MustOwt(repo, "tmux", "init") // the keys, as a user's tmux.conf binds them
	require.Equal(t, 0, e.Owt(repo, "doctor").Code, "all good while gh answers")

	loggedOut := time.Now()
	e.SetGh(ghLoggedOut)
	e.Eventually(60*time.Second, "owt list says the PR state is stale and why", func() bool {
		return strings.Contains(e.MustOwt(repo, "list"), "PR #7 open, checks pending, stale: gh is not logged in")
	})
	r := e.Owt(repo, "doctor")
	require.Equal(t, 1, r.Code, r.Stdout+r.Stderr)
	require.Contains(t, r.Stdout, "pr-state-stale: the pull request state of solo is stale: gh is not logged in (run: gh auth login)")
	p := e.pane(repo, owtBin, "popup", "control")
	require.Contains(t, e.WaitScreen(p, "stale: gh is not logged in"), "PR #7 open")
	e.keys(p, "Escape")
	e.waitClosed(p)

	failed := func() []fixture.GhCall {
		var out []fixture.GhCall
		for _, c := range e.GhCalls("pr", "view") {
			if c.At.After(loggedOut) {
				out = append(out, c)
			}
		}
		return out
	}
	e.Eventually(60*time.Second, "gh is asked again", func() bool { return len(failed()) >= 3 })
	fails := failed()
	require.GreaterOrEqual(t, fails[2].At.Sub(fails[1].At), 2*time.Second, "backed off: each wait twice the one before, from poll_interval (1s)")

	e.SetGh(fixture.GhFixture{Args: []string{"run", "view"}, Stdout: "--- FAIL: TestAlpha\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checkRun("test", "COMPLETED", "FAILURE", 101))})
	e.Eventually(90*time.Second, "the CI reaction runs again without a monitor restart", func() bool { return len(e.prItem(repo, "solo").NeedsYou) == 1 })
	require.NotContains(t, e.MustOwt(repo, "list"), "stale")
	require.Len(t, logLinesWith(e.LogLines("monitor"), "gh is not logged in"), 1, "one warning in the log")
}
