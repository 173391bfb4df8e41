package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/stretchr/testify/require"
)

// #{owt_status} becomes a read of a user option, and that option follows
// the agents' statuses: the bar a client draws changes with them, with no
// process run per redraw.
func TestStatusSegmentFollowsAgentStatus(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.Tmux("set-option", "-g", "status-left", "[#{session_name}] #{owt_status} ")
	e.Tmux("set-option", "-g", "status-right", "#{owt_status} | %H:%M")
	e.Tmux("set-option", "-g", "status-interval", "0") // redraws come from owt, not a timer
	e.MustOwt(repo, "tmux", "init")

	for _, opt := range []string{"status-left", "status-right"} {
		v := e.Tmux("show-option", "-gv", opt)
		require.NotContains(t, v, "#(", opt)
		require.NotContains(t, v, "#{owt_status}", opt)
		require.Contains(t, v, "#{@owt-status-line}", opt)
	}
	left := func() string { return e.Tmux("display-message", "-p", "-t", "harness", "#{E:status-left}") }
	require.Equal(t, "[harness]  ", left(), "no agents: an empty segment")
	e.MustOwt(repo, "tmux", "init")
	require.Equal(t, status.StatusFormat+" | %H:%M", e.Tmux("show-option", "-gv", "status-right"), "init twice changes nothing")

	_, _, screen := e.attachRecorded("harness")
	e.MustOwt(repo, "new", "--tool", "claude", "--name", "quick", "Finish quickly\n!exit 3")
	it := e.Find(repo, "quick")
	e.Eventually(15*time.Second, "the agent exited", func() bool { return e.Find(repo, it.Name).Status == "exited" })
	e.Eventually(5*time.Second, "the bar shows the exited agent", func() bool {
		return left() == "[harness] #[fg=white,bg=red] ✕ 1 #[default] "
	})
	e.waitDrawn(screen, "✕ 1")
	require.Equal(t, "exited", e.Tmux("show-options", "-t", it.Session, "-v", "@owt-status"))

	// owt status-line prints the same summary for other bars; NO_COLOR and
	// pipes get it plain.
	require.Equal(t, "✕ 1\n", e.MustOwt(repo, "status-line"))
	require.Equal(t, "#[fg=white,bg=red] ✕ 1 #[default]\n", e.MustOwt(repo, "status-line", "--tmux"))
	r := e.OwtIn(repo, []string{"NO_COLOR=1"}, "", "status-line", "--tmux")
	require.Equal(t, "✕ 1\n", r.Stdout)

	e.MustOwt(repo, "delete", "--force", "--yes", it.Name)
	e.Eventually(5*time.Second, "the segment empties", func() bool { return left() == "[harness]  " })
	require.True(t, strings.HasPrefix(e.Tmux("display-message", "-p", "#{E:status-right}"), " | "))
}

// A worktree with no agent is not counted in the bar, but once its pull
// request needs the user, the bar's ▲ names it as it would an agent.
func TestANoAgentWorktreeThatNeedsYouIsNamedInTheStatusBar(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.soloWithPR(repo, prView("aaaaaaa1", "", checkRun("test", "COMPLETED", "FAILURE", 101)))
	e.PrependGh(fixture.GhFixture{Args: []string{"run", "view"}, Stdout: "--- FAIL: TestAlpha\n"})

	e.Eventually(60*time.Second, "solo needs you", func() bool { return len(e.prItem(repo, "solo").NeedsYou) == 1 })
	e.Eventually(10*time.Second, "the status bar names it", func() bool {
		return strings.Contains(e.Tmux("show-options", "-gv", "@owt-status-line"), "▲ solo")
	})
	require.Equal(t, "▲ solo", strings.TrimSpace(e.MustOwt(repo, "status-line")), "named, not counted as an agent")

	e.MustOwt(repo, "dismiss", "solo")
	require.Equal(t, "", strings.TrimSpace(e.MustOwt(repo, "status-line")), "a shell that needs nothing stays out of the bar")
	require.NotContains(t, e.Tmux("show-options", "-gqv", "@owt-status-line"), "solo")
}
