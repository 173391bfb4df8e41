package agent

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A headless run owt makes (a review, a plan) from an agent's shell runs
// in an agent's folder with its hooks, but is not that agent: it never
// carries the agent's id (issue 32 item 4).
func TestHeadlessRunsCarryNoAgentID(t *testing.T) {
	t.Setenv("OWT_AGENT_ID", "abc")
	require.NotContains(t, headlessEnv(nil), "OWT_AGENT_ID=abc")
	require.Equal(t, []string{"A=1", "B=2"}, headlessEnv([]string{"A=1", "OWT_AGENT_ID=x", "B=2"}))
}
