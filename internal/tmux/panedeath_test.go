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
// stay words (no shell, no tmux command of their own).
func TestAnArmedPaneKeepsItsProcesssEndAndStartsTheNext(t *testing.T) {
	c := server(t)
	pwned := filepath.Join(t.TempDir(), "pwned")
	dir := filepath.Join(t.TempDir(), `a "b" $HOME ; #{pane_id} ~x #(touch `+pwned+`)`)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	out := filepath.Join(t.TempDir(), "next.txt")
	armed := filepath.Join(t.TempDir(), "armed")
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
			next := []string{"sh", "-c", `pwd > "$1"; echo "$V" >> "$1"; exec sleep 600`, "next", out}
			require.NoError(t, c.WhenPaneDies(pane, dir, map[string]string{"V": `x"; kill-server ; $(touch ` + pwned + `) #(touch ` + pwned + `) #{pane_id}`}, next))
			require.NoError(t, os.WriteFile(armed, nil, 0o644))
			require.Eventually(t, func() bool {
				b, err := os.ReadFile(out)
				return err == nil && strings.Count(string(b), "\n") == 2
			}, 10*time.Second, 50*time.Millisecond, "the next program ran in the pane")
			b, _ := os.ReadFile(out)
			require.Equal(t, dir+"\n"+`x"; kill-server ; $(touch `+pwned+`) #(touch `+pwned+`) #{pane_id}`+"\n", string(b))
			require.NoFileExists(t, pwned)
			code, screen, ok := c.PaneDied(pane)
			require.True(t, ok)
			require.Equal(t, tc.code, code)
			require.Contains(t, screen, "last words")
			// Read once: the option and buffer are gone, the pane disarmed.
			_, _, ok = c.PaneDied(pane)
			require.False(t, ok)
			v, _ := c.Run("show-options", "-p", "-v", "-t", pane, "remain-on-exit")
			require.Empty(t, v)
			v, _ = c.Run("show-hooks", "-p", "-t", pane, "pane-died")
			require.NotContains(t, v, "respawn")
			require.True(t, c.Running(), "the server lives")
		})
	}
}

func TestDeadCode(t *testing.T) {
	for in, want := range map[string]int{"0/": 0, "3/": 3, "/9": 137, "/": 128} {
		got, ok := DeadCode(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	_, ok := DeadCode("")
	require.False(t, ok)
}
