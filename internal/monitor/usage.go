package monitor

import (
	"context"
	"os"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/usage"
	"github.com/owt-tmux/owt/internal/workspace"
)

// usageTools are the tools whose session files owt reads tokens from.
var usageTools = map[string]bool{usage.FormatClaude: true, usage.FormatCodex: true, usage.FormatGemini: true, usage.FormatOpenCode: true}

// readUsage is the usage tick: every [usage] interval (15 s) of a
// repository, the agents of this server there have what their session
// files gained read (internal/usage, at most DefaultTickBytes a tick)
// into the repository's usage file; when the budget ran out, the rest is
// read at the next tick. No tmux, no git.
func (m *monitor) readUsage(now time.Time) {
	if m.usageAt == nil {
		m.usageAt = map[string]time.Time{}
		m.tracker = &usage.Tracker{Logf: m.logf, Prices: m.prices, OpenCode: askOpenCode}
	}
	defer m.showLimits(now)
	due := map[string]bool{}
	var srcs []usage.Source
	for _, r := range m.recs.records {
		tool := workspace.ToolOf(r)
		if r.NoAgent || !usageTools[tool] || !m.usageOwner(r) {
			continue
		}
		d, ok := due[r.Repo]
		if !ok {
			every := m.usageInterval(r.Repo)
			next := m.usageAt[r.Repo].Add(every)
			d = !now.Before(next)
			if d {
				m.usageAt[r.Repo] = now
			}
			due[r.Repo] = d
		}
		if d {
			srcs = append(srcs, usage.Source{Repo: r.Repo, Name: r.Name, Tool: tool, Dir: r.Path, Transcript: r.Transcript,
				// A swarm's workers share a folder, and an in-place agent
				// works in the user's own checkout, where the user's own
				// sessions are: only what its hooks name is its own.
				Since: r.CreatedAt, Life: r.Life, Sessions: r.Sessions, Shared: r.Swarm != nil || r.InPlace, Recovered: r.Recovered})
		}
	}
	if len(srcs) == 0 {
		return // most ticks: no repository is due
	}
	paths := map[string]int{}
	for _, r := range m.recs.records {
		paths[r.Path]++
	}
	for i := range srcs {
		srcs[i].Shared = srcs[i].Shared || paths[srcs[i].Dir] > 1
	}
	if _, more := m.tracker.Tick(srcs, now); more {
		for repo := range due {
			delete(m.usageAt, repo) // the budget ran out: go on at the next tick
		}
	}
}

// askOpenCode asks OpenCode's database through owt-mcp (owt does not
// link SQLite): only when an OpenCode agent's repository is due and the
// database changed since the last ask.
func askOpenCode(ctx context.Context, db string, qs []usage.OpenCodeQuery) ([]usage.OpenCodeRow, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var rows []usage.OpenCodeRow
	err = memory.Ask(ctx, self, []string{"_opencode-usage", "--db", db}, qs, &rows)
	return rows, err
}

// usageOwner reports whether r's usage is this monitor's to read: its
// agent runs on this server.
func (m *monitor) usageOwner(r *state.Record) bool {
	return r.Socket == m.socket || m.sameServer(r)
}

func (m *monitor) usageInterval(repo string) time.Duration {
	if v := m.recs.repo(repo, m.logf); v.ws != nil && v.ws.Config.Usage.Interval.Duration > 0 {
		return v.ws.Config.Usage.Interval.Duration
	}
	return 15 * time.Second
}

func (m *monitor) prices(repo string) map[string]config.Price {
	if v := m.recs.repo(repo, m.logf); v.ws != nil && v.ws.Config.Prices != nil {
		return v.ws.Config.Prices
	}
	return config.DefaultPrices()
}
