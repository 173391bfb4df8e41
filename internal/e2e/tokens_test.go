package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// usageJSON is the part of owt list --json's "usage" the tests read.
type usageJSON struct {
	Model       string  `json:"model"`
	Input       int64   `json:"input_tokens"`
	Output      int64   `json:"output_tokens"`
	CacheWrite  int64   `json:"cache_write_tokens"`
	CacheRead   int64   `json:"cache_read_tokens"`
	TotalTokens int64   `json:"total_tokens"`
	CostUSD     float64 `json:"cost_usd"`
}

// usageOf is the usage owt list --json shows for name (nil: none).
func (e *Env) usageOf(dir, name string) *usageJSON {
	e.t.Helper()
	out := e.MustOwt(dir, "list", "--json")
	var items []struct {
		Name  string     `json:"name"`
		Usage *usageJSON `json:"usage"`
	}
	require.NoError(e.t, json.Unmarshal([]byte(out), &items), out)
	for _, it := range items {
		if it.Name == name {
			return it.Usage
		}
	}
	return nil
}

type usageReportJSON struct {
	By     string `json:"by"`
	Groups []struct {
		Key         string  `json:"key"`
		TotalTokens int64   `json:"total_tokens"`
		CostUSD     float64 `json:"cost_usd"`
	} `json:"groups"`
	Total struct {
		TotalTokens int64   `json:"total_tokens"`
		CostUSD     float64 `json:"cost_usd"`
	} `json:"total"`
	PricesAsOf string `json:"prices_as_of"`
	Limits     []struct {
		Agent   string `json:"agent"`
		Tool    string `json:"tool"`
		Windows []struct {
			Window      string    `json:"window"`
			UsedPercent float64   `json:"used_percent"`
			ResetsAt    time.Time `json:"resets_at"`
			From        string    `json:"from"`
		} `json:"windows"`
	} `json:"limits"`
}

// windowsOf is owt usage --json's windows of name, as "5h=82.5 weekly=41
// (from)"; "" when it has none.
func (e *Env) windowsOf(dir, name string) string {
	e.t.Helper()
	for _, a := range e.usageReport(dir).Limits {
		if a.Agent != name {
			continue
		}
		var parts []string
		from := ""
		for _, w := range a.Windows {
			parts = append(parts, fmt.Sprintf("%s=%g", w.Window, w.UsedPercent))
			from = w.From
			require.WithinDuration(e.t, time.Now(), w.ResetsAt, 73*time.Hour, "a reset time to come")
		}
		return strings.Join(parts, " ") + " (" + from + ")"
	}
	return ""
}

func (e *Env) usageReport(dir string, args ...string) usageReportJSON {
	e.t.Helper()
	out := e.MustOwt(dir, append([]string{"usage", "--json"}, args...)...)
	var r usageReportJSON
	require.NoError(e.t, json.Unmarshal([]byte(out), &r), out)
	return r
}

// A Claude agent's tokens, read by the monitor from the transcript its
// hooks name (the fake writes Claude Code's format), show in owt list
// (--json and a TOKENS/COST column) and owt usage, and grow as the agent
// works: the transcript is read on from where the last read stopped.
func TestTokensAndCostOfAClaudeAgent(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[usage]\ninterval = \"1s\"\n\n[prices.\"claude-sonnet-4-5\"]\ninput = 3\noutput = 15\ncache_write = 3.75\ncache_read = 0.3\n")
	e.MustOwt(repo, "new", "--tool", "claude", "--name", "tok", "Count things\n!usage 1000 200 3000 4000\n!windows 82.5 41")
	e.MustOwt(repo, "new", "--no-agent", "--name", "shell", "No agent here")

	var u *usageJSON
	e.Eventually(30*time.Second, "the first turn's tokens in owt list", func() bool {
		u = e.usageOf(repo, "tok")
		return u != nil && u.TotalTokens == 8200
	})
	require.Equal(t, usageJSON{Model: "claude-sonnet-4-5-20250929", Input: 1000, Output: 200, CacheWrite: 3000, CacheRead: 4000,
		TotalTokens: 8200, CostUSD: u.CostUSD}, *u, "one message written as two blocks counts once")
	require.InDelta(t, (1000*3+200*15+3000*3.75+4000*0.3)/1e6, u.CostUSD, 1e-9)
	require.Nil(t, e.usageOf(repo, "shell"), "no agent, no usage")
	// Its usage windows, through the statusLine owt registered, which
	// Claude runs with its JSON: in owt usage and the session's @owt-usage.
	e.Eventually(30*time.Second, "tok's usage windows", func() bool {
		return e.windowsOf(repo, "tok") == "5h=82.5 weekly=41 (claude statusline)"
	})
	require.Regexp(t, `tok\s+claude\s+82%\s+in (1h59m|2h00m)\s+41%\s+in (2d23h|3d0h)`, e.MustOwt(repo, "usage"))
	e.Eventually(10*time.Second, "@owt-usage of tok's session", func() bool {
		out, _ := e.TryTmux("show-options", "-qv", "-t", "="+e.Find(repo, "tok").Session+":", "@owt-usage")
		return out == "5h 82% wk 41%"
	})

	table := e.MustOwt(repo, "list")
	require.Regexp(t, `NAME\s+BRANCH\s+STATUS\s+TOOL\s+AGE\s+TOKENS\s+COST\s+CHANGES`, table)
	require.Regexp(t, `tok\s.*\s8\.2k\s+\$0\.02\s`, table)
	require.Regexp(t, `shell\s.*\s-\s+-\s`, table)

	e.Eventually(20*time.Second, "tok idle", func() bool { return e.Find(repo, "tok").Status == "idle" })
	e.MustOwt(repo, "send", "tok", "Once more\n!usage 10 20 0 0")
	e.Eventually(30*time.Second, "the second turn's tokens added", func() bool {
		u = e.usageOf(repo, "tok")
		return u != nil && u.TotalTokens == 8230
	})
	require.Equal(t, int64(1010), u.Input)
	require.Equal(t, int64(220), u.Output)

	r := e.usageReport(repo)
	require.Equal(t, "agent", r.By)
	require.Len(t, r.Groups, 1)
	require.Equal(t, "tok", r.Groups[0].Key)
	require.Equal(t, int64(8230), r.Groups[0].TotalTokens)
	require.Equal(t, int64(8230), r.Total.TotalTokens)
	require.InDelta(t, u.CostUSD, r.Total.CostUSD, 1e-9)
	require.NotEmpty(t, r.PricesAsOf)
	days := e.usageReport(repo, "--by", "day")
	require.Len(t, days.Groups, 1)
	require.Equal(t, time.Now().Format(time.DateOnly), days.Groups[0].Key)
	runs := e.usageReport(repo, "--by", "run")
	require.Equal(t, "-", runs.Groups[0].Key, "an agent of no run")
	text := e.MustOwt(repo, "usage")
	require.Regexp(t, `tok\s+1k\s+220\s+3k\s+4k\s+8\.2k\s+\$0\.02`, text)

	res := e.Owt(repo, "usage", "--by", "week")
	require.Equal(t, 2, res.Code, res.Stderr)
	require.Contains(t, res.Stderr, `--by takes agent, run or day, not "week"`)
}

// A Codex agent's tokens come from its rollout file (found by the cwd
// its session_meta names), the running total of its token_count events:
// cached input is the cache read, and the model is Codex's.
func TestTokensOfACodexAgent(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[usage]\ninterval = \"1s\"\n")
	e.MustOwt(repo, "new", "--tool", "codex", "--name", "cx", "Fix the build\n!usage 1000 200 0 300\n!windows 30 10.5")
	var u *usageJSON
	e.Eventually(30*time.Second, "the turn's tokens in owt list", func() bool {
		u = e.usageOf(repo, "cx")
		return u != nil && u.TotalTokens == 1500
	})
	require.Equal(t, usageJSON{Model: "gpt-5-codex", Input: 1000, Output: 200, CacheRead: 300, TotalTokens: 1500, CostUSD: u.CostUSD}, *u)
	require.InDelta(t, (1000*1.25+200*10+300*0.125)/1e6, u.CostUSD, 1e-9, "the default price of gpt-5-codex")
	require.Equal(t, "5h=30 weekly=10.5 (codex session)", e.windowsOf(repo, "cx"), "the token_count's rate_limits")

	e.Eventually(20*time.Second, "cx idle", func() bool { return e.Find(repo, "cx").Status == "idle" })
	e.MustOwt(repo, "send", "cx", "Again\n!usage 10 20 0 30")
	e.Eventually(30*time.Second, "the second turn added", func() bool {
		u = e.usageOf(repo, "cx")
		return u != nil && u.TotalTokens == 1560
	})
	require.Equal(t, int64(330), u.CacheRead)
}

// A Gemini CLI agent's tokens come from its chat file, in the folder its
// project registry names for the worktree; a message appended again once
// its tokens are known counts once.
func TestTokensOfAGeminiAgent(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[usage]\ninterval = \"1s\"\n")
	e.MustOwt(repo, "new", "--tool", "gemini", "--name", "gm", "Explain the build\n!usage 1000 200 0 300")
	var u *usageJSON
	e.Eventually(30*time.Second, "the turn's tokens in owt list", func() bool {
		u = e.usageOf(repo, "gm")
		return u != nil && u.TotalTokens == 1500
	})
	require.Equal(t, usageJSON{Model: "gemini-2.5-pro", Input: 1000, Output: 200, CacheRead: 300, TotalTokens: 1500, CostUSD: u.CostUSD}, *u)
	require.InDelta(t, (1000*1.25+200*10+300*0.125)/1e6, u.CostUSD, 1e-9, "the default price of gemini-2.5-pro")
}

// A run with budget_tokens pauses once its agents used that many: no
// task starts after, and the control plane shows the run in NEEDS YOU
// with the reason.
func TestARunPausesAtItsTokenBudget(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[usage]\ninterval = \"1s\"\n")
	e.WriteFile(repo, "g.toml", `[run]
max_concurrent = 1
tool = "claude"
settle = "600s"
budget_tokens = 5000

[[task]]
id = "a"
task = "Spend tokens\n!usage 9000 0 0 0\n!write a.txt\n!commit add a"

[[task]]
id = "b"
task = "`+taskScript("b.txt")+`"
depends_on = ["a"]
`)
	e.MustOwt(repo, "run", "start", "g.toml")
	e.MustOwt(repo, "tmux", "init")

	var st runStatusJSON
	e.Eventually(60*time.Second, "run g paused at its budget", func() bool {
		st = e.runStatus(repo, "g")
		return st.State == "paused"
	})
	out := e.MustOwt(repo, "run", "status", "g", "--json")
	var why struct {
		Why          string `json:"why"`
		Tokens       int64  `json:"tokens"`
		BudgetTokens int64  `json:"budget_tokens"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &why))
	require.Equal(t, "budget reached: 9000 tokens of 5000", why.Why)
	require.Equal(t, int64(9000), why.Tokens)
	require.Equal(t, int64(5000), why.BudgetTokens)
	require.Contains(t, e.MustOwt(repo, "run", "status", "g"), "paused (budget reached: 9000 tokens of 5000), 0/2 done")
	require.Contains(t, e.MustOwt(repo, "run", "status", "g"), "9k tokens of a 5k budget")
	for _, ev := range e.runEvents(repo, "g") {
		require.False(t, ev.Event == "starting" && ev.Task == "b", "b never starts in a run over its budget")
	}
	for _, task := range st.Tasks {
		if task.ID == "b" {
			require.Equal(t, "pending", task.State)
		}
	}

	p := e.pane(repo, owtBin, "popup", "control")
	var screen string
	e.Eventually(15*time.Second, "the run in NEEDS YOU", func() bool {
		screen = e.Capture(p)
		return sectionOf(screen, "run g") == "NEEDS YOU"
	})
	require.Contains(t, strings.Join(strings.Fields(screen), " "), "budget reached: 9000 tokens of 5000")
}

// An OpenCode agent's tokens come from OpenCode's own SQLite database
// (the fake writes it as OpenCode 1.18.33 does, its assistant message
// filled in after it was written), read through owt-mcp: owt links no
// SQLite. A second turn adds; nothing counts twice.
func TestTokensOfAnOpenCodeAgent(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[usage]\ninterval = \"1s\"\n")
	e.MustOwt(repo, "new", "--tool", "opencode", "--name", "oc", "Explain the build\n!usage 1000 200 50 300")
	var u *usageJSON
	e.Eventually(30*time.Second, "the turn's tokens in owt list", func() bool {
		u = e.usageOf(repo, "oc")
		return u != nil && u.TotalTokens == 1550
	})
	require.Equal(t, usageJSON{Model: "claude-sonnet-4-5", Input: 1000, Output: 200, CacheWrite: 50, CacheRead: 300, TotalTokens: 1550, CostUSD: u.CostUSD}, *u)
	require.Greater(t, u.CostUSD, 0.0, "priced from the default table")

	e.Eventually(20*time.Second, "oc idle", func() bool { return e.Find(repo, "oc").Status == "idle" })
	e.MustOwt(repo, "send", "oc", "Again\n!usage 10 20 0 30")
	e.Eventually(30*time.Second, "the second turn added", func() bool {
		u = e.usageOf(repo, "oc")
		return u != nil && u.TotalTokens == 1610
	})
	require.Equal(t, int64(1610), e.usageReport(repo, "--by", "agent").Total.TotalTokens)
}
