package worktreecmd

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
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

// owt list --fresh says how old the figures it skips may be: the cache's
// own age limit (issue 35: the help said 3 s, the cache keeps them 10 s).
func TestListFreshSaysTheCachesAge(t *testing.T) {
	var usageText string
	for _, fl := range ListCommand(&cmdutil.Factory{IO: &cmdutil.IOStreams{}}).Flags {
		if b, ok := fl.(*cli.BoolFlag); ok && b.Name == "fresh" {
			usageText = b.Usage
		}
	}
	require.Contains(t, usageText, fmt.Sprintf("up to %d s old", int(lifecycle.StatsTTL/time.Second)))
}
