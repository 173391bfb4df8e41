// Package usage is what each agent's model use cost: its input, output
// and cache tokens and their price, read from the session files the
// agents' tools write themselves (Claude Code's transcripts, Codex's
// rollout files, Gemini CLI's chat files, OpenCode's database through
// owt-mcp), never from their screens.
//
// The monitor reads those files incrementally (Tracker): each file's byte
// offset and identity (device, inode) are remembered, so a tick reads
// only what was appended since the last one, a replaced or truncated file
// is read again from its start (its earlier counts dropped), and a tick
// reads at most a bounded number of bytes. A line that does not parse is
// skipped. What it finds goes into one small JSON file per repository
// (Store), which owt list, owt usage and the run engine read: none of
// them ever parses a session file.
//
// It also keeps each agent's usage windows (Limits: the 5-hour and weekly
// share of its plan used, and when each resets) where a tool reports
// them: Codex in its rollout files, Claude Code only to a statusLine
// command (which owt registers, and which keeps them in a file per agent
// for the tracker). limits.go says what each tool, at its pinned version,
// really gives.
//
// It imports config (prices), state (the state folder, the locked JSON
// file) and atomicfile; nothing above them.
package usage

import "github.com/owt-tmux/owt/internal/config"

// ReadsFrom says, for a user, where the usage comes from: every tool
// whose usage is read (owt usage says it when there is none yet).
const ReadsFrom = "the session files of Claude Code, Codex and Gemini CLI, and OpenCode's database"

// Tokens are counts of tokens of one kind each. Input is input that was
// not read from a cache; Output includes reasoning ("thoughts").
type Tokens struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheWrite int64 `json:"cache_write_tokens"`
	CacheRead  int64 `json:"cache_read_tokens"`
}

// Total is every token the provider counted: input, output, cache writes
// and cache reads. A run's budget_tokens is measured in it.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheWrite + t.CacheRead }

// Add adds o to t.
func (t *Tokens) Add(o Tokens) {
	t.Input += o.Input
	t.Output += o.Output
	t.CacheWrite += o.CacheWrite
	t.CacheRead += o.CacheRead
}

// Sub is t less o.
func (t Tokens) Sub(o Tokens) Tokens {
	return Tokens{t.Input - o.Input, t.Output - o.Output, t.CacheWrite - o.CacheWrite, t.CacheRead - o.CacheRead}
}

// maxCount is the largest token count one entry of a session file may
// hold: far above any real session (a billion tokens is thousands of full
// contexts), far below where sums of them overflow an int64.
const maxCount = 10_000_000_000

// saneCounts reports whether every count is one a tool could have
// written: not negative, not beyond maxCount. A transcript that says
// otherwise is damaged or crafted, and its figures would make a cost
// negative or astronomical.
func saneCounts(counts ...int64) bool { return within(maxCount, counts...) }

// within reports whether every count is from 0 to limit.
func within(limit int64, counts ...int64) bool {
	for _, n := range counts {
		if n < 0 || n > limit {
			return false
		}
	}
	return true
}

// sane reports whether t's counts are sane (saneCounts).
func (t Tokens) sane() bool { return t.within(maxCount) }

// within reports whether each of t's counts is from 0 to limit.
func (t Tokens) within(limit int64) bool {
	return within(limit, t.Input, t.Output, t.CacheWrite, t.CacheRead)
}

// Zero reports whether t counts nothing.
func (t Tokens) Zero() bool { return t == Tokens{} }

// Cost is what t costs at price p, in US dollars.
func (t Tokens) Cost(p config.Price) float64 {
	return (float64(t.Input)*p.Input + float64(t.Output)*p.Output +
		float64(t.CacheWrite)*p.CacheWrite + float64(t.CacheRead)*p.CacheRead) / 1e6
}

// ByModel are token counts by model name.
type ByModel map[string]Tokens

// Sum is the tokens of every model.
func (m ByModel) Sum() Tokens {
	var t Tokens
	for _, v := range m {
		t.Add(v)
	}
	return t
}

// Priced is the cost of every model's tokens at prices, and the models
// that have no price (their tokens cost nothing in the sum).
func (m ByModel) Priced(prices map[string]config.Price) (cost float64, unpriced []string) {
	for model, t := range m {
		if t.Zero() {
			continue
		}
		p, ok := config.PriceOf(prices, model)
		if !ok {
			unpriced = append(unpriced, model)
			continue
		}
		cost += t.Cost(p)
	}
	sortStrings(unpriced)
	return cost, unpriced
}

// Days are token counts by local day (2006-01-02) and model.
type Days map[string]ByModel

// add counts t for model on day.
func (d Days) add(day, model string, t Tokens) {
	m := d[day]
	if m == nil {
		m = ByModel{}
		d[day] = m
	}
	v := m[model]
	v.Add(t)
	m[model] = v
}

// Models is every day's tokens, by model.
func (d Days) Models() ByModel {
	out := ByModel{}
	for _, m := range d {
		for model, t := range m {
			v := out[model]
			v.Add(t)
			out[model] = v
		}
	}
	return out
}

// damaged reports whether d holds a count no sound entries add up to:
// negative, or beyond what a sum of them could reach.
func (d Days) damaged() bool {
	for _, m := range d {
		for _, t := range m {
			if !t.within(maxSum) {
				return true
			}
		}
	}
	return false
}

// maxSum bounds one day's count of one model in one file.
const maxSum = 1_000_000 * maxCount

// merge adds every count of o into d.
func (d Days) merge(o Days) {
	for day, m := range o {
		for model, t := range m {
			d.add(day, model, t)
		}
	}
}
