package usage

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCodexSessionIsTheNewestStartedInTheFolder(t *testing.T) {
	home := t.TempDir()
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.Local)
	write := func(day time.Time, id, cwd string, at time.Time) {
		dir := filepath.Join(home, "sessions", day.Format("2006"), day.Format("01"), day.Format("02"))
		require.NoError(t, os.MkdirAll(dir, 0o700))
		p := filepath.Join(dir, "rollout-"+day.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
		line := `{"timestamp":"x","type":"session_meta","payload":{"id":"` + id + `","cwd":"` + cwd + `"}}` + "\n"
		require.NoError(t, os.WriteFile(p, []byte(line), 0o600))
		require.NoError(t, os.Chtimes(p, at, at))
	}
	wt := filepath.Join(home, "wt")
	write(now.AddDate(0, 0, -1), "old", wt, now.Add(-20*time.Hour))
	write(now, "new", wt, now.Add(-time.Hour))
	write(now, "other", filepath.Join(home, "elsewhere"), now)
	require.Equal(t, "new", CodexSession(home, wt, time.Time{}, now))
	require.Equal(t, "", CodexSession(home, filepath.Join(home, "none"), time.Time{}, now))
	// An agent made after both: neither is its own (an earlier agent's
	// of the same name and folder).
	require.Equal(t, "", CodexSession(home, wt, now.Add(-30*time.Minute), now))
	require.Equal(t, "new", CodexSession(home, wt, now.Add(-2*time.Hour), now))
}
