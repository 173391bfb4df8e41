package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The status bar shows a run in flight, "⏵name finished/total ▲needs-you",
// "⏸" while it is paused, from a global option the engine keeps (the bar
// reads options only), and drops it once the run finished.
func TestStatusBarShowsARunsProgressUntilItFinishes(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Tmux("set-option", "-g", "status-right", "#{owt_status}|")
	e.WriteFile(repo, "auth.toml", `[run]
max_concurrent = 1
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"

[[task]]
id = "b"
task = "!ask touch b.txt\n`+taskScript("b.txt")+`"
depends_on = ["a"]
`)
	e.MustOwt(repo, "run", "start", "auth.toml")
	e.MustOwt(repo, "tmux", "init")
	runs := func() string { return e.Tmux("show-options", "-gqv", "@owt-runs") }
	right := func() string { return e.Tmux("display-message", "-p", "-t", "harness", "#{E:status-right}") }
	require.NotContains(t, e.Tmux("show-option", "-gv", "status-right"), "#(", "no process per redraw")

	// a is done, b waits for the user at its permission prompt.
	needsYou := "⏵auth 1/2 #[fg=black,bg=yellow,bold] ▲1 #[default]"
	e.Eventually(40*time.Second, "the bar shows a done and b needing you", func() bool { return runs() == needsYou })
	require.True(t, strings.HasPrefix(right(), needsYou+" #[fg=black,bg=yellow,bold] ▲ auth-b"), "the run, then the agents: %q", right())

	e.MustOwt(repo, "run", "pause", "auth")
	e.Eventually(10*time.Second, "the bar shows the run paused", func() bool {
		return runs() == "⏸auth 1/2 #[fg=black,bg=yellow,bold] ▲1 #[default]"
	})
	e.MustOwt(repo, "run", "resume", "auth")
	e.Eventually(10*time.Second, "the bar shows the run going", func() bool { return runs() == needsYou })

	// The user answers; b finishes, and so does the run: it drops off.
	e.Tmux("send-keys", "-t", e.Find(repo, "auth-b").Session, "1")
	e.Eventually(40*time.Second, "run auth finished", func() bool { return e.runStatus(repo, "auth").State == "finished" })
	e.Eventually(10*time.Second, "the run drops off the bar", func() bool { return runs() == "" })
	require.Equal(t, e.Tmux("show-options", "-gqv", "@owt-status-line")+"|", right(), "nothing of the run is left on the bar")
}
