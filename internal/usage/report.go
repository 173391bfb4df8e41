package usage

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/owt-tmux/owt/internal/config"
)

// Ways owt usage groups its totals.
const (
	ByAgent = "agent"
	ByRun   = "run"
	ByDay   = "day"
)

// Group is one line of owt usage: the tokens of one agent, run or day,
// their estimated cost, and the models without a price.
type Group struct {
	Key   string `json:"key"`
	Repo  string `json:"repo,omitempty"`
	Tool  string `json:"tool,omitempty"`
	Model string `json:"model,omitempty"` // the agent's latest (by agent)
	Tokens
	TotalTokens int64    `json:"total_tokens"`
	CostUSD     float64  `json:"cost_usd"`
	Unpriced    []string `json:"unpriced,omitempty"`
	Models      ByModel  `json:"models"`
}

func (g *Group) add(m ByModel, prices map[string]config.Price) {
	if g.Models == nil {
		g.Models = ByModel{}
	}
	for model, t := range m {
		v := g.Models[model]
		v.Add(t)
		g.Models[model] = v
	}
	g.Tokens.Add(m.Sum())
	g.TotalTokens = g.Total()
	cost, unpriced := m.Priced(prices)
	g.CostUSD += cost
	for _, u := range unpriced {
		if !contains(g.Unpriced, u) {
			g.Unpriced = append(g.Unpriced, u)
		}
	}
	sort.Strings(g.Unpriced)
}

// Summary is the group's totals as a list shows them.
func (g *Group) Summary() *Summary {
	return &Summary{Model: g.Model, Tokens: g.Tokens, TotalTokens: g.TotalTokens, CostUSD: g.CostUSD, Unpriced: g.Unpriced}
}

// Report groups the usage of files by agent, run or day, costing each
// repository's tokens at its prices; runOf names an agent's run ("" for
// none). It returns the groups (largest cost first by agent and run,
// by date for days) and their total.
func Report(files []*File, by string, prices func(repo string) map[string]config.Price,
	runOf func(repo, name string) string) ([]*Group, *Group) {
	type groupKey struct{ repo, key string } // an agent, a run or a day, of a repository
	groups := map[groupKey]*Group{}
	total := &Group{Key: "total", Models: ByModel{}}
	get := func(key, repo string) *Group {
		k := groupKey{repo, key}
		if g, ok := groups[k]; ok {
			return g
		}
		g := &Group{Key: key, Repo: repo, Models: ByModel{}}
		groups[k] = g
		return g
	}
	multi := len(files) > 1
	for _, f := range files {
		p := prices(f.Repo)
		repo := ""
		if multi {
			repo = f.Repo
		}
		for name, a := range f.Agents {
			if a.Total() == 0 {
				continue
			}
			switch by {
			case ByDay:
				for day, m := range a.Days {
					get(day, "").add(m, p)
				}
			case ByRun:
				key := runOf(f.Repo, name)
				if key == "" {
					key = "-"
				}
				get(key, repo).add(a.Days.Models(), p)
			default:
				g := get(name, repo)
				g.Tool, g.Model = a.Tool, a.Model
				g.add(a.Days.Models(), p)
			}
			total.add(a.Days.Models(), p)
		}
	}
	out := make([]*Group, 0, len(groups))
	for _, g := range groups {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if by == ByDay {
			return out[i].Key < out[j].Key
		}
		if out[i].CostUSD != out[j].CostUSD {
			return out[i].CostUSD > out[j].CostUSD
		}
		if out[i].TotalTokens != out[j].TotalTokens {
			return out[i].TotalTokens > out[j].TotalTokens
		}
		return out[i].Repo+out[i].Key < out[j].Repo+out[j].Key
	})
	return out, total
}

// AllFiles reads every repository's usage file.
func AllFiles() ([]*File, error) {
	entries, err := os.ReadDir(Dir())
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list usage files: %w", err)
	}
	var out []*File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		s := &Store{Path: filepath.Join(Dir(), e.Name())}
		f, err := s.Load()
		if err != nil || f.Repo == "" {
			continue
		}
		out = append(out, f)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
