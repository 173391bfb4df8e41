package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// The pull request of a worktree no live agent works in is still
// followed: made with --no-agent (the user's own work) or its agent
// exited. A failure there has no one to send it to, so it needs the user
// at once, told once, and nothing waits in an outbox for an agent that
// will never read it.
func TestAFailingPRWithNoAgentToTellNeedsYouAtOnce(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	e.userConfig("[pr]\npoll_interval = \"1s\"\n")
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.MustOwt(repo, "tmux", "init")

	// Both open PR 7 here; each poll serves its own branch's view.
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "solo", "--", "My own work")
	e.commitIn(e.Find(repo, "solo").Path, "mine.txt", "mine\n", "my own commit")
	e.startAgent(repo, "gone", "Add a feature\n!write feature.txt\n!commit add feature")
	e.SetGh(noPRYet, createFixture)
	e.MustOwt(repo, "pr", "solo")
	e.MustOwt(repo, "pr", "gone")
	e.MustOwt(repo, "send", "gone", "!exit 0")
	e.WaitStatus(repo, "gone", "exited", 30*time.Second)

	e.SetGh(
		fixture.GhFixture{Args: []string{"run", "view"}, Stdout: "--- FAIL: TestAlpha\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("aaaaaaa1", "", checkRun("test", "COMPLETED", "FAILURE", 101))},
	)
	for _, name := range []string{"solo", "gone"} {
		e.Eventually(60*time.Second, name+" needs you", func() bool { return len(e.prItem(repo, name).NeedsYou) == 1 })
		pr := e.prItem(repo, name).PR
		require.Equal(t, "fail", pr.Checks, "%s: the poll's state is shown", name)
	}
	require.Contains(t, e.prItem(repo, "solo").NeedsYou[0], "ci_failed: no agent works in it: test failed on aaaaaaa")
	require.Contains(t, e.prItem(repo, "gone").NeedsYou[0], "ci_failed: its agent exited: test failed on aaaaaaa")
	require.Equal(t, 0, e.prItem(repo, "solo").Reactions["ci_failed"].Attempts, "no message was sent: no attempt used")

	// Polled again, and a new head fails: still the user's, told once.
	polls := len(e.GhCalls("pr", "view"))
	e.SetGh(
		fixture.GhFixture{Args: []string{"run", "view"}, Stdout: "--- FAIL: TestBeta\n"},
		fixture.GhFixture{Args: []string{"pr", "view"}, Stdout: prView("bbbbbbb2", "", checkRun("test", "COMPLETED", "FAILURE", 102))},
	)
	e.Eventually(30*time.Second, "the new head is judged for both", func() bool {
		return len(e.GhCalls("run", "view", "102")) == 2 && len(e.GhCalls("pr", "view")) >= polls+4
	})
	e.Eventually(10*time.Second, "why follows the cause", func() bool {
		return strings.Contains(e.prItem(repo, "solo").NeedsYou[0], "bbbbbbb")
	})
	for _, name := range []string{"solo", "gone"} {
		require.Len(t, logLinesWith(e.LogLines("monitor"), name+" needs you (ci_failed"), 1, "%s: one notification", name)
	}
	require.Empty(t, e.promptsWith("gone", "CI fails"), "nothing was typed for the exited agent")
}
