package usage

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

// A negative or overflowing token count in a transcript is no usage:
// the entry is skipped and counted as rejected, and the sound ones stand,
// so no cost comes out negative or astronomical.
func TestImpossibleTokenCountsAreRejected(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, path, fixture(t, "claude-transcript-bad-counts.jsonl"))
	fs := &FileState{Format: FormatClaude}
	_, err := fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	sum := fs.Days.Models().Sum()
	require.Equal(t, Tokens{Input: 120, Output: 80, CacheWrite: 500, CacheRead: 1000}, sum)
	require.Equal(t, 2, fs.Rejected)
	cost, _ := fs.Days.Models().Priced(config.DefaultPrices())
	require.Positive(t, cost)
	require.Less(t, cost, 1.0)
}

// Codex's running totals and Gemini's messages are checked the same way:
// cached input larger than the input, or a negative count, is rejected.
func TestImpossibleCodexAndGeminiCountsAreRejected(t *testing.T) {
	dir := t.TempDir()
	codex := filepath.Join(dir, "rollout.jsonl")
	tc := func(in, cached, out int64) []byte {
		return []byte(fmt.Sprintf(`{"timestamp":"2026-11-27T11:00:09.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":%d,"output_tokens":%d}}}}`+"\n", in, cached, out))
	}
	appendTo(t, codex, tc(1000, 400, 10), tc(1000, 5000, 20), tc(-7, 0, 30), tc(2000, 400, 40))
	fs := &FileState{Format: FormatCodex}
	_, err := fs.Read(codex, 1<<20, now)
	require.NoError(t, err)
	require.Equal(t, Tokens{Input: 1600, Output: 40, CacheRead: 400}, fs.Days.Models().Sum())
	require.Equal(t, 2, fs.Rejected)

	gem := filepath.Join(dir, "chat.jsonl")
	gl := func(id string, in, cached, out int64) []byte {
		return []byte(fmt.Sprintf(`{"id":%q,"timestamp":"2026-11-27T12:00:04.000Z","type":"gemini","model":"gemini-2.5-pro","tokens":{"input":%d,"output":%d,"cached":%d,"thoughts":0,"tool":0}}`+"\n", id, in, out, cached))
	}
	appendTo(t, gem, gl("m1", 100, 0, 10), gl("m2", 10, 50, 1), gl("m3", 9223372036854775807, 0, 9223372036854775807))
	fs = &FileState{Format: FormatGemini}
	_, err = fs.Read(gem, 1<<20, now)
	require.NoError(t, err)
	require.Equal(t, Tokens{Input: 100, Output: 10}, fs.Days.Models().Sum())
	require.Equal(t, 2, fs.Rejected)
}

// The monitor's tracker says so in owt.log, and the repo's figures hold
// only the sound entries.
func TestTrackerLogsRejectedUsage(t *testing.T) {
	stateHome(t)
	home := t.TempDir()
	repo, wt := "/src/app", "/src/app.worktrees/login"
	var logged []string
	tr := &Tracker{Home: home, ClaudeDir: filepath.Join(home, ".claude"), CodexHome: filepath.Join(home, ".codex"),
		GeminiDir: filepath.Join(home, ".gemini"), Logf: func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }}
	write(t, filepath.Join(home, ".claude", "projects", ClaudeProject(wt), "bad-1.jsonl"), fixture(t, "claude-transcript-bad-counts.jsonl"))
	tr.Tick([]Source{{Repo: repo, Name: "login", Tool: "claude", Dir: wt}}, now)
	got := Summaries(repo)["login"]
	require.NotNil(t, got)
	require.Equal(t, Tokens{Input: 120, Output: 80, CacheWrite: 500, CacheRead: 1000}, got.Tokens)
	require.Positive(t, got.CostUSD)
	require.Len(t, logged, 1, "%q", logged)
	require.Contains(t, logged[0], "skipped 2 entries")
	require.Contains(t, logged[0], "impossible token counts")
}

// Counts an older owt kept from such entries (a negative sum) are
// dropped, and the file is read again from its start.
func TestDamagedCountsAreReadAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	appendTo(t, path, fixture(t, "claude-transcript-bad-counts.jsonl"))
	fs := &FileState{Format: FormatClaude}
	_, err := fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	want := fs.Days.Models().Sum()
	// As an older owt left it: the offset at the end, a negative sum.
	for _, m := range fs.Days {
		for model, v := range m {
			v.Output = -9999919
			m[model] = v
		}
	}
	res, err := fs.Read(path, 1<<20, now)
	require.NoError(t, err)
	require.True(t, res.Restarted)
	require.Equal(t, want, fs.Days.Models().Sum())
}
