package monitor

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/usage"
)

const turn = `{"type":"assistant","timestamp":"2026-11-28T10:00:00.000Z","requestId":"req_%s","message":{"id":"msg_%s","model":"claude-sonnet-4-5","usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}}}` + "\n"

func appendTurn(t *testing.T, path, id string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	require.NoError(t, err)
	_, err = f.WriteString(fmtTurn(id))
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func fmtTurn(id string) string { return fmt.Sprintf(turn, id, id) }

// The usage tick reads the agents of this monitor's server only, once
// per [usage] interval (15 s by default), from the transcript their hooks
// named.
func TestUsageTickReadsThisServersAgentsEveryInterval(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	repo := t.TempDir()
	mine := filepath.Join(t.TempDir(), "mine.jsonl")
	theirs := filepath.Join(t.TempDir(), "theirs.jsonl")
	appendTurn(t, mine, "a1")
	appendTurn(t, theirs, "b1")
	m := newMonitor(&tmux.Client{Bin: "tmux", Socket: "/nowhere/sock"}, nil)
	m.socket = "/nowhere/sock"
	m.recs.records = []*state.Record{
		{Name: "mine", Repo: repo, Path: t.TempDir(), Tool: "claude", Socket: m.socket, Transcript: mine},
		{Name: "theirs", Repo: repo, Path: t.TempDir(), Tool: "claude", Socket: "/other/sock", Transcript: theirs},
		{Name: "shell", Repo: repo, Path: t.TempDir(), NoAgent: true, Socket: m.socket},
	}
	now := time.Now()
	m.readUsage(now)
	got := usage.Summaries(repo)
	require.Equal(t, int64(15), got["mine"].TotalTokens)
	require.NotContains(t, got, "theirs", "another server's agent is its monitor's")

	appendTurn(t, mine, "a2")
	m.readUsage(now.Add(time.Second))
	require.Equal(t, int64(15), usage.Summaries(repo)["mine"].TotalTokens, "not before the interval")
	m.readUsage(now.Add(15 * time.Second))
	require.Equal(t, int64(30), usage.Summaries(repo)["mine"].TotalTokens)
}
