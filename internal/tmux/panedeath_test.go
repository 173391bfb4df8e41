package tmux

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A pane armed with WhenPaneDies outlives its process: the hook keeps the
// exit code and the last screen, and starts the next program in the pane
// by argv, in its folder with its environment — hostile words in them
// stay words (no shell, no tmux command of their own, no format).
func TestAnArmedPaneKeepsItsProcesssEndAndStartsTheNext(t *testing.T) {
	c := server(t)
	pwned := filepath.Join(t.TempDir(), "pwned")
	dir := filepath.Join(t.TempDir(), `a "b" $HOME ; #{pane_id} ~x #(touch `+pwned+`)`)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	out := filepath.Join(t.TempDir(), "next.txt")
	armed := filepath.Join(t.TempDir(), "armed")
	screen := filepath.Join(t.TempDir(), "screen")
	hostile := "x\"; kill-server ; $(touch " + pwned + ") #(touch " + pwned + ") #{pane_id}\n   #line\ttab"
	for _, tc := range []struct {
		name, script string
		code         int
	}{
		{"exit", "echo 'last words'; sleep 0.3; exit 3", 3},
		{"signal", "echo 'last words'; sleep 0.3; kill -9 $$", 137},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(out)
			_ = os.Remove(armed)
			// The process ends once the test has armed its pane.
			wait := `while [ ! -e "$0" ]; do sleep 0.05; done; `
			created, err := c.NewSession(NewSession{Name: tc.name, Dir: dir, Argv: []string{"sh", "-c", wait + tc.script, armed}})
			require.NoError(t, err)
			pane := created.PaneID
			next := []string{"sh", "-c", `pwd > "$1"; printf '%s\n' "$V" >> "$1"; exec sleep 600`, "next", out}
			require.NoError(t, c.WhenPaneDies(pane, dir, screen, map[string]string{"V": hostile}, next))
			require.NoError(t, os.WriteFile(armed, nil, 0o644))
			require.Eventually(t, func() bool {
				nudge(c)
				b, err := os.ReadFile(out)
				return err == nil && strings.HasSuffix(string(b), "tab\n")
			}, 10*time.Second, 50*time.Millisecond, "the next program ran in the pane")
			b, _ := os.ReadFile(out)
			require.Equal(t, dir+"\n"+hostile+"\n", string(b))
			require.NoFileExists(t, pwned)
			code, known := c.PaneDied(pane)
			require.True(t, known)
			require.Equal(t, tc.code, code)
			kept, err := os.ReadFile(screen)
			require.NoError(t, err)
			require.Contains(t, string(kept), "last words")
			require.Contains(t, string(kept), "Pane is dead")
			buffers, _ := c.Run("list-buffers", "-F", "#{buffer_name}")
			require.Empty(t, buffers, "no buffer left for a paste to find")
			// Read once: the status is gone, the pane disarmed.
			_, known = c.PaneDied(pane)
			require.False(t, known)
			v, _ := c.Run("show-options", "-p", "-v", "-t", pane, "remain-on-exit")
			require.Empty(t, v)
			v, _ = c.Run("show-hooks", "-p", "-t", pane, "pane-died")
			require.NotContains(t, v, "respawn")
			require.True(t, c.Running(), "the server lives")
		})
	}
}

// The hook runs once: a program that cannot start in the pane (owt gone,
// or one that exits at once) leaves the pane to close, never to be
// started again and again.
func TestAnArmedPaneStartsTheNextProgramOnce(t *testing.T) {
	c := server(t)
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	armed := filepath.Join(dir, "armed")
	created, err := c.NewSession(NewSession{Name: "once", Dir: dir, Argv: []string{"sh", "-c", `while [ ! -e "$0" ]; do sleep 0.05; done; exit 1`, armed}})
	require.NoError(t, err)
	next := []string{"sh", "-c", `echo x >> "$0"; exit 2`, count}
	require.NoError(t, c.WhenPaneDies(created.PaneID, dir, filepath.Join(dir, "screen"), nil, next))
	require.NoError(t, os.WriteFile(armed, nil, 0o644))
	require.Eventually(t, func() bool {
		nudge(c)
		out, _ := c.Run("list-panes", "-a", "-F", "#{pane_id}")
		return !strings.Contains(out, created.PaneID)
	}, 10*time.Second, 50*time.Millisecond, "the pane closes")
	time.Sleep(300 * time.Millisecond)
	b, _ := os.ReadFile(count)
	require.Equal(t, "x\n", string(b), "started once")
}

// nudge has tmux look for its children's exits again, once a second: tmux
// 3.3a can miss the exit of a pane's process in the first instants of a
// new server (a plain pane too, with no owt: its process stays a zombie,
// the pane open) until another of its children exits, which run-shell's
// job does. These tests end their panes' processes in those instants.
func nudge(c *Client) {
	if time.Since(lastNudge) >= time.Second {
		lastNudge = time.Now()
		_, _ = c.Run("run-shell", "true")
	}
}

var lastNudge time.Time

func TestDeadCode(t *testing.T) {
	for in, want := range map[string]int{"0/": 0, "3/": 3, "/9": 137} {
		got, known := DeadCode(in)
		require.True(t, known, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "/"} {
		_, known := DeadCode(in)
		require.False(t, known, "%q: a signal tmux did not name", in)
	}
}
