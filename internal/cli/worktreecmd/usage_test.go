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

// owt usage shows each agent's usage windows after its tokens: the used
// share and when it resets, a dash where the tool gave no such window;
// a window past its reset is left out.
func TestUsageShowsEachAgentsWindows(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	seen := now.Add(-3 * time.Minute)
	files := []*usage.File{{Repo: "/src/app", Agents: map[string]*usage.Agent{
		"login": {Tool: "claude", Limits: usage.Limits{
			{Window: usage.Window5h, UsedPercent: 82.5, ResetsAt: now.Add(80 * time.Minute), SeenAt: seen},
			{Window: usage.WindowWeekly, UsedPercent: 41, ResetsAt: now.Add(76 * time.Hour), SeenAt: seen},
		}},
		"fix": {Tool: "codex", Limits: usage.Limits{
			{Window: usage.Window5h, UsedPercent: 12, ResetsAt: now.Add(-time.Minute), SeenAt: seen},
			{Window: usage.WindowWeekly, UsedPercent: 9.9, ResetsAt: now.Add(24 * time.Hour), SeenAt: seen},
		}},
		"plain": {Tool: "gemini"},
	}}}
	limits := usage.LimitsReport(files, now)
	require.Len(t, limits, 2)
	var out bytes.Buffer
	printLimits(&cmdutil.IOStreams{Out: &out}, limits, now)
	require.Equal(t, "\n"+
		"AGENT  TOOL    5H USED  RESETS    WEEKLY USED  RESETS   SEEN\n"+
		"fix    codex   -        -         9%           in 1d0h  3m ago\n"+
		"login  claude  82%      in 1h20m  41%          in 3d4h  3m ago\n", out.String())
	require.Equal(t, "5h 82% wk 41%", limits[1].Windows.Brief())
}

// An agent whose usage windows were read before any token of it (Codex
// says its windows first) has no TOKENS or COST in owt list.
func TestListShowsNoTokensForWindowsAlone(t *testing.T) {
	require.Equal(t, []string{"-", "-"}, usageColumns(&usage.Summary{Limits: usage.Limits{{Window: usage.Window5h, UsedPercent: 3}}}))
	require.Equal(t, []string{"-", "-"}, usageColumns(nil))
}
