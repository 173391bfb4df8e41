package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A --no-agent worktree holds a shell, not an agent: list says "shell" in
// the table and in --json, and no agent count (status-line, the status bar
// option) counts it.
func TestShellsAreNotCountedAsAgents(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.agentIdle(repo, "agent")
	e.shell(repo, "sh")

	require.Equal(t, "shell", e.Find(repo, "sh").Tool)
	require.Equal(t, "claude", e.Find(repo, "agent").Tool)
	table := e.MustOwt(repo, "list")
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "sh ") {
			require.Contains(t, line, "shell")
		}
	}

	require.Equal(t, "○ 1", strings.TrimSpace(e.MustOwt(repo, "status-line")))
	var sum struct {
		Total  int
		Counts map[string]int
	}
	out := e.MustOwt(repo, "status-line", "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &sum), out)
	require.Equal(t, 1, sum.Total)
	require.Equal(t, 1, sum.Counts["idle"])

	// The bar's option, as owt publishes it on a status change.
	e.MustOwt(repo, "delete", "agent", "--force", "--yes")
	e.agentIdle(repo, "agent2")
	bar := e.Tmux("show-options", "-gqv", "@owt-status-line")
	require.Contains(t, bar, "○ 1 #[default]")
	require.NotContains(t, bar, "○ 2")
}
