package usage

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

func stateHome(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, data, 0o600))
}

func TestTrackerReadsEachToolsFilesIntoTheRepoUsageFile(t *testing.T) {
	stateHome(t)
	home := t.TempDir()
	repo, wt := "/src/app", "/src/app.worktrees/login"
	since := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	mk := func() *Tracker {
		return &Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude"), CodexHome: filepath.Join(home, ".codex"),
			GeminiDir: filepath.Join(home, ".gemini")}
	}
	tr := mk()

	// Claude: half the transcript, found by the worktree's project folder.
	cl := lines(fixture(t, "claude-transcript.jsonl"))
	transcript := filepath.Join(home, ".claude", "projects", ClaudeProject(wt), "6f1c.jsonl")
	write(t, transcript, bytes.Join(cl[:3], nil))
	// Codex: a rollout of this worktree, and one of another folder.
	rollout := bytes.ReplaceAll(fixture(t, "codex-rollout.jsonl"), []byte("/work/app"), []byte(wt+"-codex"))
	write(t, filepath.Join(home, ".codex", "sessions", "2026", "11", "27", "rollout-2026-11-27T11-00-00-a.jsonl"), rollout)
	write(t, filepath.Join(home, ".codex", "sessions", "2026", "11", "27", "rollout-2026-11-27T11-00-00-b.jsonl"),
		bytes.ReplaceAll(fixture(t, "codex-rollout.jsonl"), []byte("/work/app"), []byte("/elsewhere")))
	// Gemini: its project registry names the folder's chats.
	write(t, filepath.Join(home, ".gemini", "projects.json"), []byte(`{"projects":{"`+wt+`-gemini":"login"}}`))
	write(t, filepath.Join(home, ".gemini", "tmp", "login", "chats", "session-2026-11-27T12-00-3c2b1a00.jsonl"), fixture(t, "gemini-chat.jsonl"))

	srcs := []Source{
		{Repo: repo, Name: "login", Tool: "claude", Dir: wt, Since: since},
		{Repo: repo, Name: "fix", Tool: "codex", Dir: wt + "-codex", Since: since},
		{Repo: repo, Name: "explain", Tool: "gemini", Dir: wt + "-gemini", Since: since},
		{Repo: repo, Name: "login/tester", Tool: "claude", Dir: wt, Since: since, Shared: true},
	}
	read, more := tr.Tick(srcs, now)
	require.Positive(t, read)
	require.False(t, more)
	got := Summaries(repo)
	require.Equal(t, Tokens{Input: 10, Output: 250, CacheWrite: 2000, CacheRead: 15000}, got["login"].Tokens)
	require.Equal(t, Tokens{Input: 6000, Output: 1000, CacheRead: 24000}, got["fix"].Tokens)
	require.Equal(t, "gpt-5-codex", got["fix"].Model)
	require.Equal(t, Tokens{Input: 5550, Output: 480, CacheRead: 13000}, got["explain"].Tokens)
	require.NotContains(t, got, "login/tester", "a swarm worker owns only the transcript its hooks name")

	// The rest of the transcript, and a subagent's beside it.
	write(t, transcript, bytes.Join(cl, nil))
	write(t, filepath.Join(home, ".claude", "projects", ClaudeProject(wt), "6f1c", "subagents", "agent-a1.jsonl"), cl[4])
	tr.Tick(srcs, now)
	got = Summaries(repo)
	want := Tokens{Input: 50, Output: 490, CacheWrite: 3000, CacheRead: 49000}
	require.Equal(t, want, got["login"].Tokens)
	p := config.DefaultPrices()["claude-sonnet-4-5"]
	require.InDelta(t, want.Cost(p), got["login"].CostUSD, 1e-9)
	require.Equal(t, want.Total(), got["login"].TotalTokens)

	// The totals owt list reads are kept apart from the offsets.
	totals, err := os.ReadFile(ForRepo(repo).Path)
	require.NoError(t, err)
	require.NotContains(t, string(totals), `"offset"`)
	offsets, err := os.ReadFile(ForRepo(repo).statesPath())
	require.NoError(t, err)
	require.Contains(t, string(offsets), `"offset"`)

	// A new monitor goes on from the offsets kept in the file.
	read, _ = mk().Tick(srcs, now)
	require.Zero(t, read, "nothing is read twice")
	require.Equal(t, want, Summaries(repo)["login"].Tokens)
	require.Equal(t, want.Total()+Tokens{Input: 6000, Output: 1000, CacheRead: 24000}.Total(), TokensOf(repo, []string{"login", "fix", "nosuch"}))
}

func TestTrackerStopsAtItsTickBudget(t *testing.T) {
	stateHome(t)
	home := t.TempDir()
	wt := "/src/app.worktrees/big"
	data := fixture(t, "claude-transcript.jsonl")
	write(t, filepath.Join(home, ".claude", "projects", ClaudeProject(wt), "s.jsonl"), data)
	tr := &Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude"), TickBytes: 1000, FileBytes: 1000}
	src := []Source{{Repo: "/src/app", Name: "big", Tool: "claude", Dir: wt}}
	ticks := 0
	for {
		read, more := tr.Tick(src, now)
		ticks++
		require.LessOrEqual(t, read, int64(1000+1000))
		if !more {
			break
		}
		require.Less(t, ticks, 20)
	}
	require.Greater(t, ticks, 1)
	require.Equal(t, Tokens{Input: 30, Output: 370, CacheWrite: 2500, CacheRead: 32000}, Summaries("/src/app")["big"].Tokens)
}

func TestACorruptUsageFileStartsAfresh(t *testing.T) {
	stateHome(t)
	s := ForRepo("/src/app")
	write(t, s.Path, []byte("{not json"))
	f, err := s.Load()
	require.Error(t, err)
	require.Empty(t, f.Agents)
	require.NoError(t, s.Update(func(f *File) (bool, error) { f.Agents["a"] = &Agent{Tokens: Tokens{Input: 1}}; return true, nil }))
	require.Equal(t, int64(1), Summaries("/src/app")["a"].Input)
}

// The usage file corrupted under a running monitor: its next tick writes
// its agents back, without waiting for a new turn of theirs.
func TestAUsageFileCorruptedUnderTheMonitorIsWrittenBack(t *testing.T) {
	stateHome(t)
	home := t.TempDir()
	wt := "/src/app.worktrees/x"
	write(t, filepath.Join(home, ".claude", "projects", ClaudeProject(wt), "s.jsonl"), fixture(t, "claude-transcript.jsonl"))
	tr := &Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude")}
	src := []Source{{Repo: "/src/app", Name: "x", Tool: "claude", Dir: wt, Since: time.Now().Add(-time.Hour)}}
	tr.Tick(src, now)
	require.Equal(t, int64(30), Summaries("/src/app")["x"].Input)

	write(t, ForRepo("/src/app").Path, []byte("garbage"))
	require.Empty(t, Summaries("/src/app"))
	tr.Tick(src, now) // nothing new in the transcript
	require.Equal(t, int64(30), Summaries("/src/app")["x"].Input)
}

func TestFormat(t *testing.T) {
	require.Equal(t, "950", FormatTokens(950))
	require.Equal(t, "12.3k", FormatTokens(12_345))
	require.Equal(t, "2k", FormatTokens(2_000))
	require.Equal(t, "4.5M", FormatTokens(4_500_000))
	require.Equal(t, "$0.42", FormatCost(&Summary{CostUSD: 0.42}))
	require.Equal(t, "$?", FormatCost(&Summary{Unpriced: []string{"gpt-6-sol"}}))
	require.Equal(t, "$1.00+?", FormatCost(&Summary{CostUSD: 1, Unpriced: []string{"x"}}))
}

func TestANewAgentOfAnOldNameStartsAfresh(t *testing.T) {
	stateHome(t)
	home := t.TempDir()
	wt := "/src/app.worktrees/x"
	write(t, filepath.Join(home, ".claude", "projects", ClaudeProject(wt), "old.jsonl"), fixture(t, "claude-transcript.jsonl"))
	tr := &Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude")}
	first := time.Now().Add(-time.Hour)
	tr.Tick([]Source{{Repo: "/src/app", Name: "x", Tool: "claude", Dir: wt, Since: first}}, now)
	require.Equal(t, int64(30), Summaries("/src/app")["x"].Input)

	// x deleted, and a new x made later in the same folder: the old
	// transcript is not its, and the old spend is kept apart.
	tr.Tick([]Source{{Repo: "/src/app", Name: "x", Tool: "claude", Dir: wt, Since: time.Now().Add(time.Hour)}}, now)
	got := Summaries("/src/app")
	require.NotContains(t, got, "x")
	require.Equal(t, int64(30), got["x@"+first.Local().Format("2006-01-02T15:04:05")].Input)
}

// A record rebuilt after its state file was lost is the same agent: its
// transcript is not counted twice.
func TestARecoveredRecordIsTheSameAgent(t *testing.T) {
	stateHome(t)
	home := t.TempDir()
	wt := "/src/app.worktrees/x"
	write(t, filepath.Join(home, ".claude", "projects", ClaudeProject(wt), "s.jsonl"), fixture(t, "claude-transcript.jsonl"))
	first := time.Now().Add(-time.Hour)
	tr := &Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude")}
	tr.Tick([]Source{{Repo: "/src/app", Name: "x", Tool: "claude", Dir: wt, Since: first}}, now)
	tr = &Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude")} // a monitor started again
	tr.Tick([]Source{{Repo: "/src/app", Name: "x", Tool: "claude", Dir: wt, Since: time.Now(), Recovered: true}}, now)
	got := Summaries("/src/app")
	require.Len(t, got, 1, "no x@… beside x: %v", got)
	require.Equal(t, int64(30), got["x"].Input)
}

func TestClaudeProjectIsClaudeCodesFolderName(t *testing.T) {
	require.Equal(t, "-home-u-app-worktrees-login-x", ClaudeProject("/home/u/app.worktrees/login_x"))
	require.Equal(t, "-tmp-caf-", ClaudeProject("/tmp/café"), "one '-' per UTF-16 unit")
	require.Equal(t, "-tmp---", ClaudeProject("/tmp/😀"), "an astral character is two units")
	// Values node printed for Claude Code's own code on these paths.
	require.Equal(t, "-tmp-caf----x", ClaudeProject("/tmp/café/😀x"))
	require.Equal(t, "-"+strings.Repeat("a", 199)+"-feo44x", ClaudeProject("/"+strings.Repeat("a", 250)))
}

func TestChangedPricesAreAppliedWithoutNewTokens(t *testing.T) {
	stateHome(t)
	home := t.TempDir()
	wt := "/src/app.worktrees/p"
	write(t, filepath.Join(home, ".claude", "projects", ClaudeProject(wt), "s.jsonl"), fixture(t, "claude-transcript.jsonl"))
	prices := config.DefaultPrices()
	tr := &Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude"), Prices: func(string) map[string]config.Price { return prices }}
	src := []Source{{Repo: "/src/app", Name: "p", Tool: "claude", Dir: wt, Since: time.Now().Add(-time.Hour)}}
	tr.Tick(src, now)
	before := Summaries("/src/app")["p"].CostUSD
	require.Positive(t, before)
	prices = map[string]config.Price{"claude-sonnet-4-5": {Input: 30, Output: 150, CacheWrite: 37.5, CacheRead: 3}}
	read, _ := tr.Tick(src, now)
	require.Zero(t, read)
	require.InDelta(t, 10*before, Summaries("/src/app")["p"].CostUSD, 1e-9, "ten times the price, ten times the cost")
}

// A new agent given a deleted one's name works in the same folder: it is
// charged only its own sessions, never the deleted one's transcript, and
// the repository's total counts that one once.
func TestANewAgentOfANameIsChargedOnlyItsOwnSessions(t *testing.T) {
	stateHome(t)
	home := t.TempDir()
	repo, wt := "/src/app", "/src/app.worktrees/b"
	tr := &Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude")}
	cl := lines(fixture(t, "claude-transcript.jsonl"))
	dir := filepath.Join(home, ".claude", "projects", ClaudeProject(wt))
	old, cur := filepath.Join(dir, "0ld5e55.jsonl"), filepath.Join(dir, "5ec0nd.jsonl")
	write(t, old, bytes.Join(cl, nil))
	first := Source{Repo: repo, Name: "b", Tool: "claude", Dir: wt, Life: "life1", Since: time.Now().Add(-time.Hour), Sessions: []string{"0ld5e55"}}
	tr.Tick([]Source{first}, now)
	all := Tokens{Input: 30, Output: 370, CacheWrite: 2500, CacheRead: 32000}
	require.Equal(t, all, Summaries(repo)["b"].Tokens)

	// b is deleted and a new b made a moment later: before its hooks
	// name a session, and after.
	second := Source{Repo: repo, Name: "b", Tool: "claude", Dir: wt, Life: "life2", Since: time.Now()}
	tr.Tick([]Source{second}, now)
	require.Nil(t, Summaries(repo)["b"], "the new b has spent nothing yet")
	write(t, cur, bytes.Join(cl[:3], nil))
	second.Sessions = []string{"5ec0nd"}
	tr.Tick([]Source{second}, now)
	mine := Tokens{Input: 10, Output: 250, CacheWrite: 2000, CacheRead: 15000}
	sums := Summaries(repo)
	require.Equal(t, mine, sums["b"].Tokens, "only its own session")
	var total int64
	for _, s := range sums {
		total += s.TotalTokens
	}
	require.Equal(t, all.Total()+mine.Total(), total, "the first b's transcript counted once")

	// A fresh tracker (a new monitor) reads the same.
	read, _ := (&Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude")}).Tick([]Source{second}, now)
	require.Zero(t, read)
	require.Equal(t, mine, Summaries(repo)["b"].Tokens)
}

// The same for Codex: a new agent of the name counts only the rollouts of
// its own sessions (the id its session_meta names), not the deleted one's
// in the same folder.
func TestANewCodexAgentOfANameIsChargedOnlyItsOwnSessions(t *testing.T) {
	stateHome(t)
	home := t.TempDir()
	repo, wt := "/src/app", "/src/app.worktrees/fix"
	day := now.Format("2006/01/02")
	dir := filepath.Join(home, ".codex", "sessions", filepath.FromSlash(day))
	old := bytes.ReplaceAll(fixture(t, "codex-rollout.jsonl"), []byte("/work/app"), []byte(wt))
	write(t, filepath.Join(dir, "rollout-2026-11-27T11-00-00-a.jsonl"), old)
	tr := &Tracker{Home: home, CodexHome: filepath.Join(home, ".codex")}
	first := Source{Repo: repo, Name: "fix", Tool: "codex", Dir: wt, Life: "life1", Since: now.Add(-time.Hour),
		Sessions: []string{"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"}}
	tr.Tick([]Source{first}, now)
	one := Tokens{Input: 6000, Output: 1000, CacheRead: 24000}
	require.Equal(t, one, Summaries(repo)["fix"].Tokens)

	second := Source{Repo: repo, Name: "fix", Tool: "codex", Dir: wt, Life: "life2", Since: now, Sessions: []string{"0199ffff-0000-7000-8000-000000000002"}}
	mine := bytes.ReplaceAll(old, []byte("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"), []byte("0199ffff-0000-7000-8000-000000000002"))
	write(t, filepath.Join(dir, "rollout-2026-11-27T12-00-00-b.jsonl"), mine)
	tr.Tick([]Source{second}, now)
	require.Equal(t, one, Summaries(repo)["fix"].Tokens, "only its own rollout")
	var total int64
	for _, s := range Summaries(repo) {
		total += s.TotalTokens
	}
	require.Equal(t, 2*one.Total(), total)
}
