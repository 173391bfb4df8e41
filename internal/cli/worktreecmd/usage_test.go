package worktreecmd

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/usage"
)

// owt usage with nothing read yet names every tool whose usage the
// monitor reads (issue 35: it left out OpenCode, which it reads).
func TestUsageWithNothingReadNamesEveryToolItReads(t *testing.T) {
	var out, errOut bytes.Buffer
	printUsage(&cmdutil.IOStreams{Out: &out, ErrOut: &errOut}, "agent", nil, nil)
	require.Empty(t, out.String())
	for _, tool := range []string{"Claude Code", "Codex", "Gemini CLI", "OpenCode"} {
		require.Contains(t, errOut.String(), tool)
	}
	require.Contains(t, errOut.String(), usage.ReadsFrom)
}
