package peers

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/proc"
)

// An agent's shell may start "OWT_NAME=b owt mcp" under its own pane, as
// a child or double-forked away from it: neither may act as b. The same
// server acts as a, and a server outside every agent's pane (the user's)
// as anyone.
func TestAServerUnderAnAgentsPaneActsOnlyAsThatAgent(t *testing.T) {
	w, ws := agents(t, "a", "b")
	rec, err := ws.Get("a")
	require.NoError(t, err)
	dir := t.TempDir()
	// a's pane now runs a shell with a child and an orphan (adopted by
	// init, still in the pane's session), each writing its pid.
	script := `sleep 600 & echo $! > ` + dir + `/child; (sleep 600 & echo $! > ` + dir + `/orphan); wait`
	w.Run("tmux", "respawn-pane", "-k", "-t", rec.Pane, "sh", "-c", script)
	pid := func(name string) int {
		var n int
		require.Eventually(t, func() bool {
			data, err := os.ReadFile(filepath.Join(dir, name))
			n, err = strconv.Atoi(strings.TrimSpace(string(data)))
			return err == nil && n > 0
		}, 10*time.Second, 20*time.Millisecond, "the pane's %s started", name)
		return n
	}
	child, orphan := pid("child"), pid("orphan")
	require.Eventually(t, func() bool { return parentOf(orphan) != 0 && !contains(ancestors(orphan), parentOf(child)) },
		5*time.Second, 20*time.Millisecond, "the orphan left the pane's shell")

	require.NoError(t, CheckAncestry(ws, "a", child))
	require.NoError(t, CheckAncestry(ws, "a", orphan))
	err = CheckAncestry(ws, "b", child)
	require.ErrorContains(t, err, "runs under the agent a's pane, so it cannot act as b")
	require.ErrorContains(t, CheckAncestry(ws, "b", orphan), "cannot act as b", "a double fork stays in the pane's session")
	require.NoError(t, CheckAncestry(ws, "b", os.Getpid()), "outside every agent's pane: the user's")
}

func parentOf(pid int) int {
	st, _ := proc.ReadStat(pid)
	return st.PPID
}

// ancestors is ProcessChain without the session leader at its end.
func ancestors(pid int) []int {
	c := lifecycle.ProcessChain(pid)
	return c[:len(c)-1]
}

func contains(list []int, n int) bool {
	for _, v := range list {
		if v == n {
			return true
		}
	}
	return false
}
