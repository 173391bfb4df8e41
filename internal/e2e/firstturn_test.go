package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Issue 9: a first turn that an API error ends (Claude's StopFailure) is
// not a finished turn: owt keeps the task, says the turn failed, and
// 'owt send NAME --task' sends it again.
func TestFailedFirstTurnKeepsTheTask(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	task := "fix the login\n!fail authentication_failed"
	out := e.MustOwt(repo, "new", "--json", "--no-setup", "--tool", "claude", "--name", "f", task)
	var it Item
	require.NoError(t, json.Unmarshal([]byte(out), &it), out)
	e.WaitPrompts("f", 1)

	var v struct {
		Status    string
		TurnError string `json:"turn_error"`
	}
	e.Eventually(10*time.Second, "the failed turn is recorded", func() bool {
		require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "status", "f", "--json")), &v))
		return v.Status == "idle" && v.TurnError == "authentication_failed"
	})
	require.Contains(t, e.MustOwt(repo, "status", "f"), "'owt send f --task' sends it again")
	require.Contains(t, e.MustOwt(repo, "list"), "turn failed: authentication_failed")
	e.Eventually(5*time.Second, "the monitor's notice", func() bool {
		return strings.Contains(e.OwtLog(), "f's turn failed (authentication_failed)")
	})
	require.NotContains(t, e.OwtLog(), "f finished its turn")

	r := e.Owt(repo, "send", "--task", "f", "extra")
	require.Equal(t, 2, r.Code, "--task takes no TEXT")
	require.Contains(t, e.MustOwt(repo, "send", "f", "--task"), "sent f its task again")
	prompts := e.WaitPrompts("f", 2)
	require.Equal(t, task, prompts[1])
}

// A hookless tool that takes its task as an argument and ends its first
// turn quicker than owt looks at its screen did take the task: owt shows it
// starting, maybe working, then idle, never "turn failed (task not taken)",
// and the agent takes the next message at once.
func TestQuickFirstTurnOfAHooklessToolIsNoTaskNotTaken(t *testing.T) {
	t.Parallel() // its subtests are: let it overlap the other tests too
	for _, tool := range []string{"opencode", "pi", "cursor-agent"} {
		t.Run(tool, func(t *testing.T) {
			e := NewEnv(t)
			e.SetAgentEnv("OWT_FAKE_WORK", "50ms")
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
