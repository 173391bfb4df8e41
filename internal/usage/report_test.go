package usage

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

func TestReportGroupsByAgentRunAndDay(t *testing.T) {
	son := Tokens{Input: 1_000_000, Output: 100_000}
	f := &File{Repo: "/r", Agents: map[string]*Agent{
		"a": {Tool: "claude", Model: "claude-sonnet-4-5", Tokens: son, Days: Days{"2026-11-27": {"claude-sonnet-4-5": son}}},
		"b": {Tool: "codex", Tokens: Tokens{Input: 10}, Days: Days{"2026-11-27": {"gpt-6-sol": {Input: 4}}, "2026-11-28": {"gpt-6-sol": {Input: 6}}}},
		"c": {Tool: "claude"}, // nothing read: left out
	}}
	prices := func(string) map[string]config.Price { return config.DefaultPrices() }
	runOf := func(_, name string) string {
		if name == "a" {
			return "auth"
		}
		return ""
	}
	groups, total := Report([]*File{f}, ByAgent, prices, runOf)
	require.Len(t, groups, 2)
	require.Equal(t, "a", groups[0].Key, "the costliest first")
	require.InDelta(t, 3+1.5, groups[0].CostUSD, 1e-9, "1M input at $3, 100k output at $15")
	require.Equal(t, []string{"gpt-6-sol"}, groups[1].Unpriced)
	require.Equal(t, son.Total()+10, total.TotalTokens)
	require.InDelta(t, 4.5, total.CostUSD, 1e-9)
	require.Equal(t, []string{"gpt-6-sol"}, total.Unpriced)

	groups, _ = Report([]*File{f}, ByRun, prices, runOf)
	require.Equal(t, []string{"auth", "-"}, []string{groups[0].Key, groups[1].Key})

	groups, _ = Report([]*File{f}, ByDay, prices, runOf)
	require.Equal(t, []string{"2026-11-27", "2026-11-28"}, []string{groups[0].Key, groups[1].Key})
	require.Equal(t, son.Total()+4, groups[0].TotalTokens)
}
