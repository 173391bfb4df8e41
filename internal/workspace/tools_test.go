package workspace

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

// [agent] tool names a tool owt knows, or auto: anything else (escape
// characters and all) is a config problem, found by config validate, not
// at the first owt new.
func TestAgentToolIsAKnownTool(t *testing.T) {
	cfg := config.Defaults()
	cfg.Agent.Tool = "claude\x1b]0;PWN\a\nfake: line"
	_, err := Tools(cfg)
	var ps config.Problems
	require.True(t, errors.As(err, &ps), "%v", err)
	require.Len(t, ps, 1)
	require.Contains(t, ps[0].Error(), `agent.tool: unknown tool "claude\x1b]0;PWN\a\nfake: line"`)
	for _, ok := range []string{"auto", "claude", "codex"} {
		cfg.Agent.Tool = ok
		_, err := Tools(cfg)
		require.NoError(t, err, ok)
	}
}
