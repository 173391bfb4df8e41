package monitor

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/usage"
)

// The monitor shows each agent's usage windows in @owt-usage (its
// session's, and the highest of each window globally), and with [usage]
// warn_at tells a window past it once per reset period through [notify];
// the first look only notes.
func TestUsageWindowsShowInTmuxAndWarnOncePerPeriod(t *testing.T) {
	sock, tmx := testServer(t)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	told := filepath.Join(t.TempDir(), "told")
	script := filepath.Join(t.TempDir(), "notify.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s|%s\\n' \"$OWT_STATUS\" \"$OWT_TEXT\" >> '"+told+"'\n"), 0o700))
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "owt")
	require.NoError(t, os.MkdirAll(cfgDir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.toml"),
		[]byte("[usage]\nwarn_at = 80\n[notify]\ncommand = [\""+script+"\"]\n"), 0o600))
	repo := t.TempDir()
	a := agentSession(t, tmx, sock, repo, "a")
	a.Tool = "claude"
	b := agentSession(t, tmx, sock, repo, "b")
	b.Tool = "claude"
	saveRecords(t, repo, a, b)

	var log bytes.Buffer
	m := newMonitor(&tmux.Client{Bin: "tmux", Socket: sock}, &log)
	m.socket = sock
	m.identify()
	now := time.Now()
	require.NoError(t, m.tick(now))

	reset := now.Add(2 * time.Hour).Truncate(time.Second)
	windows := func(at time.Time, five, week float64, reset time.Time) usage.Limits {
		return usage.Limits{
			{Window: usage.Window5h, UsedPercent: five, ResetsAt: reset, SeenAt: at, From: usage.FromClaudeStatusLine},
			{Window: usage.WindowWeekly, UsedPercent: week, ResetsAt: now.Add(72 * time.Hour), SeenAt: at, From: usage.FromClaudeStatusLine},
		}
	}
	step := func(i int) time.Time { return now.Add(time.Duration(i) * 15 * time.Second) }
	option := func(target string) string {
		args := []string{"show-options", "-qv"}
		if target == "" {
			args = append(args, "-g")
		} else {
			args = append(args, "-t", target)
		}
		return tmx(append(args, OptUsage)...)
	}
	notices := func() []string {
		data, _ := os.ReadFile(told)
		return strings.Fields(strings.ReplaceAll(strings.TrimSpace(string(data)), " ", "_"))
	}

	require.NoError(t, usage.WriteLimits(repo, "a", windows(step(1), 50, 41, reset)))
	require.NoError(t, usage.WriteLimits(repo, "b", windows(step(1), 20, 60, reset)))
	m.readUsage(step(1))
	require.Equal(t, "5h 50% wk 41%", option("owt-a"))
	require.Equal(t, "5h 20% wk 60%", option("owt-b"))
	require.Equal(t, "5h 50% wk 60%", option(""), "the highest of each window")

	require.NoError(t, usage.WriteLimits(repo, "a", windows(step(2), 85, 41, reset)))
	m.readUsage(step(2))
	require.Eventually(t, func() bool { return len(notices()) == 1 }, 5*time.Second, 20*time.Millisecond, log.String())
	require.Equal(t, "usage|owt:_a_has_used_85%_of_its_5-hour_usage_limit_(resets_in_1h59m)", notices()[0])
	require.Equal(t, "5h 85% wk 60%", option(""))

	// More of the same period: told once.
	require.NoError(t, usage.WriteLimits(repo, "a", windows(step(3), 95, 41, reset)))
	m.readUsage(step(3))
	// The next period past it again: told again.
	require.NoError(t, usage.WriteLimits(repo, "a", windows(step(4), 81, 41, reset.Add(5*time.Hour))))
	m.readUsage(step(4))
	require.Eventually(t, func() bool { return len(notices()) == 2 }, 5*time.Second, 20*time.Millisecond, log.String())
	time.Sleep(200 * time.Millisecond) // no third
	require.Len(t, notices(), 2, strings.Join(notices(), "\n"))
	require.Contains(t, notices()[1], "has_used_81%")

	// A new monitor: its first look tells nothing already told.
	m2 := newMonitor(&tmux.Client{Bin: "tmux", Socket: sock}, &log)
	m2.socket = sock
	m2.identify()
	require.NoError(t, m2.tick(step(5)))
	m2.readUsage(step(6))
	time.Sleep(200 * time.Millisecond)
	require.Len(t, notices(), 2)

	// A monitor's first look sets every session's windows in one tmux
	// call, not one a session (500 at a 500-agent monitor's start).
	calls := filepath.Join(t.TempDir(), "calls")
	counting := filepath.Join(t.TempDir(), "tmux")
	real, err := exec.LookPath("tmux")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(counting, []byte("#!/bin/sh\necho \"$*\" >> '"+calls+"'\nexec '"+real+"' \"$@\"\n"), 0o700))
	m3 := newMonitor(&tmux.Client{Bin: counting, Socket: sock}, &log)
	m3.socket = sock
	m3.identify()
	require.NoError(t, m3.tick(step(7)))
	m3.readUsage(step(8))
	data, _ := os.ReadFile(calls)
	setting := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, OptUsage) {
			setting++
		}
	}
	require.Equal(t, 1, setting, "tmux calls that set %s:\n%s", OptUsage, data)
	require.Equal(t, "5h 81% wk 41%", option("owt-a"))
	require.Equal(t, "5h 81% wk 60%", option(""))
}
