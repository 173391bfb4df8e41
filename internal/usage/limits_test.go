package usage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Claude Code 2.1.330's statusline JSON: the 5-hour and weekly windows;
// the gateway's spend limit is no window.
func TestClaudeStatusLineGivesTheTwoWindows(t *testing.T) {
	ls, err := ParseClaudeStatusLine(fixture(t, "claude-statusline.json"), now)
	require.NoError(t, err)
	require.Equal(t, Limits{
		{Window: Window5h, UsedPercent: 82.5, ResetsAt: time.Unix(1796047200, 0).UTC(), SeenAt: now, From: FromClaudeStatusLine},
		{Window: WindowWeekly, UsedPercent: 41, ResetsAt: time.Unix(1796400000, 0).UTC(), SeenAt: now, From: FromClaudeStatusLine},
	}, ls)

	// Before the first answer (or with an API key) there is no rate_limits.
	ls, err = ParseClaudeStatusLine([]byte(`{"model":{"id":"x"},"context_window":{}}`), now)
	require.NoError(t, err)
	require.Empty(t, ls)
	ls, err = ParseClaudeStatusLine([]byte(`{"rate_limits":{"five_hour":{"used_percentage":-3,"resets_at":1},"seven_day":null}}`), now)
	require.NoError(t, err)
	require.Empty(t, ls, "an impossible percentage is no window")
	_, err = ParseClaudeStatusLine([]byte(`{"rate_limits":`), now)
	require.Error(t, err)
}

// Codex's token_count events: the last one's windows, named by their
// length; resets_in_seconds (older Codex) counts from the event's time.
func TestCodexRolloutKeepsTheLastWindows(t *testing.T) {
	ls := lines(fixture(t, "codex-rollout-limits.jsonl"))
	fs := &FileState{Format: FormatCodex, Days: Days{}}
	for _, l := range ls[:3] {
		require.True(t, fs.line(l, now))
	}
	at := time.Date(2026, 11, 28, 11, 0, 2, 0, time.UTC)
	require.Equal(t, Limits{
		{Window: Window5h, UsedPercent: 30, ResetsAt: at.Add(time.Hour), SeenAt: at, From: FromCodexSession},
		{Window: WindowWeekly, UsedPercent: 10, ResetsAt: at.Add(24 * time.Hour), SeenAt: at, From: FromCodexSession},
	}, fs.Limits)
	require.True(t, fs.line(ls[3], now))
	at = time.Date(2026, 11, 28, 11, 0, 9, 0, time.UTC)
	require.Equal(t, Limits{
		{Window: Window5h, UsedPercent: 81, ResetsAt: time.Unix(1796047200, 0).UTC(), SeenAt: at, From: FromCodexSession},
		{Window: WindowWeekly, UsedPercent: 44.5, ResetsAt: time.Unix(1796400000, 0).UTC(), SeenAt: at, From: FromCodexSession},
	}, fs.Limits)
	require.Equal(t, ByModel{"gpt-5-codex": {Input: 4000, Output: 600, CacheRead: 8000}}, fs.Days.Models(), "the tokens are counted as before")
	// A null rate_limits keeps the last windows.
	require.True(t, fs.line([]byte(`{"timestamp":"2026-11-28T11:01:00Z","type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":null}}`+"\n"), now))
	require.Len(t, fs.Limits, 2)
	require.Equal(t, "90m", windowOf(90))
	require.Equal(t, "3d", windowOf(3*24*60))
}

// The tracker puts each agent's windows into the usage file: Codex's
// from its rollout, Claude's from the file its statusline command keeps
// (windows seen before the agent was made are an earlier one's).
func TestTrackerKeepsEachAgentsWindows(t *testing.T) {
	stateHome(t)
	home := t.TempDir()
	repo, wt := "/src/app", "/src/app.worktrees/fix"
	since := now.Add(-2 * time.Hour)
	write(t, filepath.Join(home, ".codex", "sessions", "2026", "11", "28", "rollout-2026-11-28T11-00-00-a.jsonl"),
		[]byte(string(fixture(t, "codex-rollout-limits.jsonl"))))
	rollout := filepath.Join(home, ".codex", "sessions", "2026", "11", "28", "rollout-2026-11-28T11-00-00-a.jsonl")
	data, err := os.ReadFile(rollout)
	require.NoError(t, err)
	write(t, rollout, []byte(strings.ReplaceAll(string(data), "/work/app", wt)))
	tr := &Tracker{Home: home, CodexHome: filepath.Join(home, ".codex"), ClaudeDir: filepath.Join(home, ".claude")}
	srcs := []Source{
		{Repo: repo, Name: "fix", Tool: "codex", Dir: wt, Since: since},
		{Repo: repo, Name: "login", Tool: "claude", Dir: "/src/app.worktrees/login", Since: since},
	}
	tr.Tick(srcs, now)
	got := Summaries(repo)
	require.NotNil(t, got["fix"])
	require.Len(t, got["fix"].Limits, 2, "%+v", got["fix"])
	require.Equal(t, 81.0, got["fix"].Limits[0].UsedPercent)
	require.NotContains(t, got, "login", "no usage and no windows yet")

	old, err := ParseClaudeStatusLine(fixture(t, "claude-statusline.json"), since.Add(-time.Minute))
	require.NoError(t, err)
	require.NoError(t, WriteLimits(repo, "login", old))
	tr.Tick(srcs, now.Add(time.Minute))
	require.NotContains(t, Summaries(repo), "login", "an earlier agent's windows")

	ls, err := ParseClaudeStatusLine(fixture(t, "claude-statusline.json"), now)
	require.NoError(t, err)
	require.NoError(t, WriteLimits(repo, "login", ls))
	tr.Tick(srcs, now.Add(2*time.Minute))
	w, ok := Summaries(repo)["login"].Limits.Of(Window5h)
	require.True(t, ok)
	require.Equal(t, 82.5, w.UsedPercent)
	require.Equal(t, time.Unix(1796047200, 0).UTC(), w.ResetsAt)
	require.Empty(t, Limits{w}.Current(w.ResetsAt), "a window past its reset says nothing")

	// A new monitor reads them back from the usage file.
	f, err := ForRepo(repo).Load()
	require.NoError(t, err)
	require.Equal(t, Summaries(repo)["login"].Limits, f.Agents["login"].Limits)
}
