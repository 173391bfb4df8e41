package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A hookless tool that takes its task as an argument and ends its first
// turn quicker than owt looks at its screen did take the task: owt shows it
// starting, maybe working, then idle, never "turn failed (task not taken)",
// and the agent takes the next message at once.
func TestQuickFirstTurnOfAHooklessToolIsNoTaskNotTaken(t *testing.T) {
	t.Parallel() // its subtests are: let it overlap the other tests too
	for _, tool := range []string{"opencode", "pi", "cursor-agent"} {
		t.Run(tool, func(t *testing.T) {
			e := NewEnv(t)
			e.Set("OWT_FAKE_WORK", "50ms")
			e.Tmux("set-environment", "-g", "OWT_FAKE_WORK", "50ms")
			repo := e.NewRepo("app")
			rec := e.recordStatuses(repo)
			it := newJSON(t, e, repo, "--tool", tool, "--no-setup", "--name", "q", "say hi")
			require.Equal(t, []string{"say hi"}, e.WaitPrompts("q", 1))
			e.WaitScreen(it.Session, "Done: say hi")

			e.await(rec, "q", 0, seenStatus{Status: "idle"}, func(s seenStatus) bool {
				return s.TurnError == "" && (s.Status == "starting" || s.Status == "working" || s.Status == "idle")
			})
			e.MustOwt(repo, "send", "q", "and bye")
			require.Equal(t, []string{"say hi", "and bye"}, e.WaitPrompts("q", 2))
			require.NotContains(t, e.OwtLog(), "task not taken")
		})
	}
}
