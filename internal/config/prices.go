package config

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// PricesAsOf is when the default prices were taken; the README says so,
// and that the provider's own page is the truth.
const PricesAsOf = "2026-11-28"

// Price is what a model costs, in US dollars per million tokens: input
// (not cached), output (reasoning included), a cache write (Anthropic's
// 5-minute cache) and a cache read.
type Price struct {
	Input      float64 `toml:"input"`
	Output     float64 `toml:"output"`
	CacheWrite float64 `toml:"cache_write"`
	CacheRead  float64 `toml:"cache_read"`
}

// DefaultPrices are the built-in prices, by model name as the tools
// write it in their session files (a dated Claude id such as
// claude-sonnet-4-5-20250929 takes the price of claude-sonnet-4-5).
//
// Claude: the pricing tiers of the model catalog baked into Claude Code
// 2.1.332 (its "pricing_tiers" and each model's "pricing": input,
// output, cache_write_5m, cache_read). OpenAI and Google: their public
// list prices (standard tier, prompts up to 200k tokens), which no tool
// installed here carries; models newer than these have no default price
// and show tokens without a cost until [prices."MODEL"] names one.
func DefaultPrices() map[string]Price {
	tier := func(in, out, write, read float64) Price {
		return Price{Input: in, Output: out, CacheWrite: write, CacheRead: read}
	}
	t315 := tier(3, 15, 3.75, 0.3)
	t1575 := tier(15, 75, 18.75, 1.5)
	t525 := tier(5, 25, 6.25, 0.5)
	return map[string]Price{
		// Anthropic (Claude Code's catalog)
		"claude-3-5-haiku":  tier(0.8, 4, 1, 0.08),
		"claude-haiku-4-5":  tier(1, 5, 1.25, 0.1),
		"claude-haiku-5-5":  tier(0.1, 0.5, 0.125, 0.01),
		"claude-3-5-sonnet": t315,
		"claude-3-7-sonnet": t315,
		"claude-sonnet-4":   t315,
		"claude-sonnet-4-0": t315,
		"claude-sonnet-4-5": t315,
		"claude-sonnet-4-6": t315,
		"claude-sonnet-5":   tier(2, 10, 2.5, 0.2),
		"claude-sonnet-5-5": tier(2, 10, 2.5, 0.1),
		"claude-opus-4":     t1575,
		"claude-opus-4-0":   t1575,
		"claude-opus-4-1":   t1575,
		"claude-opus-4-5":   t525,
		"claude-opus-4-6":   t525,
		"claude-opus-4-7":   t525,
		"claude-opus-4-8":   t525,
		"claude-opus-5":     t525,
		"claude-opus-5-5":   tier(4, 20, 5, 0.2),
		// OpenAI (cached input is the cache read; no cache write charge)
		"gpt-5":              tier(1.25, 10, 0, 0.125),
		"gpt-5-codex":        tier(1.25, 10, 0, 0.125),
		"gpt-5.1":            tier(1.25, 10, 0, 0.125),
		"gpt-5.1-codex":      tier(1.25, 10, 0, 0.125),
		"gpt-5.1-codex-max":  tier(1.25, 10, 0, 0.125),
		"gpt-5-mini":         tier(0.25, 2, 0, 0.025),
		"gpt-5.1-codex-mini": tier(0.25, 2, 0, 0.025),
		"gpt-5-nano":         tier(0.05, 0.4, 0, 0.005),
		"gpt-4.1":            tier(2, 8, 0, 0.5),
		"o3":                 tier(2, 8, 0, 0.5),
		"o4-mini":            tier(1.1, 4.4, 0, 0.275),
		// Google (prompts up to 200k tokens; thoughts are output)
		"gemini-2.5-pro":        tier(1.25, 10, 0, 0.125),
		"gemini-2.5-flash":      tier(0.3, 2.5, 0, 0.03),
		"gemini-2.5-flash-lite": tier(0.1, 0.4, 0, 0.01),
		"gemini-3-pro-preview":  tier(2, 12, 0, 0.2),
	}
}

// dated is what may follow a price's name in a model id: a date, a
// provider's version suffix, Claude Code's context marker ("[1m]").
var dated = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(-\d{8})?(-v\d+(:\d+)?)?(\[[0-9a-z]+\])?$`) })

// PriceOf is the price of model: the entry named exactly, else the
// longest name the model id extends only by a date or version suffix
// (claude-opus-4-5-20251101 → claude-opus-4-5, never claude-opus-4).
func PriceOf(prices map[string]Price, model string) (Price, bool) {
	if p, ok := prices[model]; ok {
		return p, true
	}
	best := ""
	for name := range prices {
		if len(name) > len(best) && strings.HasPrefix(model, name) && dated().MatchString(model[len(name):]) {
			best = name
		}
	}
	if best == "" {
		return Price{}, false
	}
	return prices[best], true
}

// validatePrices checks [prices."MODEL"]: no negative price.
func validatePrices(cfg Config) Problems {
	const maxPrice = 1e6
	var ps Problems
	names := make([]string, 0, len(cfg.Prices))
	for n := range cfg.Prices {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := cfg.Prices[n]
		for _, f := range []struct {
			key string
			v   float64
		}{{"input", p.Input}, {"output", p.Output}, {"cache_write", p.CacheWrite}, {"cache_read", p.CacheRead}} {
			// NaN and infinities pass "< 0" and would make every cost, and
			// the usage file's JSON, unwritable; no real price is near 1e6.
			if f.v < 0 || math.IsNaN(f.v) || f.v > maxPrice {
				ps = append(ps, Problem{Key: fmt.Sprintf("prices.%q.%s", n, f.key), Msg: fmt.Sprintf("must be a number from 0 to %g (dollars per million tokens)", float64(maxPrice))})
			}
		}
		if strings.TrimSpace(n) == "" {
			ps = append(ps, Problem{Key: "prices", Msg: "a price needs a model name"})
		}
	}
	return ps
}
