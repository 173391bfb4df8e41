package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPricesMergeByModelAndField(t *testing.T) {
	root := setup(t, "[prices.\"claude-sonnet-4-5\"]\noutput = 20\n",
		"[prices.\"my-model\"]\ninput = 2\noutput = 8.5\ncache_read = 0.2\n")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, Price{Input: 3, Output: 20, CacheWrite: 3.75, CacheRead: 0.3}, cfg.Prices["claude-sonnet-4-5"],
		"one field overridden, the default's others kept")
	require.Equal(t, Price{Input: 2, Output: 8.5, CacheRead: 0.2}, cfg.Prices["my-model"], "an integer reads as dollars")
	require.Contains(t, cfg.Prices, "gpt-5", "defaults kept beside the user's")
}

func TestPricesRejectNegativesAndUnknownKeys(t *testing.T) {
	root := setup(t, "", "[prices.\"x\"]\ninput = -1\ncache_writes = 2\n")
	_, err := Load(root)
	require.Error(t, err)
	require.Contains(t, err.Error(), `prices."x".input: must be a number from 0 to`)
	require.Contains(t, err.Error(), `prices.x.cache_writes: unknown key`)
	// NaN and infinities would make every cost, and the usage file, unwritable.
	root = setup(t, "", "[prices.\"x\"]\ninput = nan\noutput = inf\ncache_read = 1e308\n")
	_, err = Load(root)
	require.Error(t, err)
	for _, k := range []string{"input", "output", "cache_read"} {
		require.Contains(t, err.Error(), `prices."x".`+k+`: must be a number from 0 to`)
	}
}

func TestPriceOfTakesTheLongestDatedName(t *testing.T) {
	p := DefaultPrices()
	for model, want := range map[string]float64{
		"claude-opus-4-5-20251101":   5,
		"claude-opus-4-20250514":     15,
		"claude-opus-4-1":            15,
		"claude-sonnet-4-5[1m]":      3,
		"claude-haiku-4-5-20251001":  1,
		"gpt-5-codex":                1.25,
		"gemini-2.5-flash":           0.3,
		"gemini-2.5-flash-lite":      0.1,
		"claude-sonnet-4-5-v1:0":     3,
		"claude-opus-4-9":            -1, // not priced as claude-opus-4
		"gpt-6-sol":                  -1,
		"gemini-2.5-flash-something": -1,
	} {
		got, ok := PriceOf(p, model)
		if want < 0 {
			require.False(t, ok, model)
			continue
		}
		require.True(t, ok, model)
		require.Equal(t, want, got.Input, model)
	}
}
