package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// After the tmux server died, a swarm's workers have no window: owt swarm
// list says they are lost, not what their records last said (idle), and
// owt swarm send says what to do instead of an owt attach that refuses
// workers.
func TestSwarmAfterTheTmuxServerDied(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "fix", "fix it")
	e.MustOwt(repo, "swarm", "start", "--tool", "claude", "-w", "fix", "--workers", "reviewer,tester", "review it")
	for _, n := range []string{"fix/reviewer", "fix/tester"} {
		e.WaitPrompts(n, 1)
		e.Eventually(30*time.Second, n+" idle", func() bool { return e.Find(repo, n).Status == "idle" })
	}
	e.Tmux("kill-server")

	var sws []struct {
		Workers []struct {
			Name, Status string
			Lost         bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "swarm", "list", "--json")), &sws))
	require.Len(t, sws, 1)
	for _, w := range sws[0].Workers {
		require.True(t, w.Lost, "%s has no window", w.Name)
	}
	list := e.MustOwt(repo, "swarm", "list")
	require.Equal(t, 3, strings.Count(list, "lost (no window"), list, "the coordinator, reviewer and tester")

	r := e.Owt(repo, "swarm", "send", "fix", "are you there")
	require.NotEqual(t, 0, r.Code)
	require.NotContains(t, r.Stderr, "owt attach")
	require.Contains(t, r.Stderr, "owt swarm stop fix")
	require.Equal(t, 3, strings.Count(r.Stderr, "\n"), r.Stderr)
	require.NotContains(t, r.Stdout, "sent to")
}
