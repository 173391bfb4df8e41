package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"
)

// The server each run talks to is its factory's: -S, -L, $TMUX inside
// tmux, else $OWT_TMUX_SOCKET, else tmux's default ("").
func TestEachRunChoosesItsServer(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMUX_TMPDIR", tmp)
	// socketOf runs owt ARGS list with env set (runOwt empties $TMUX and
	// $OWT_TMUX_SOCKET first) and returns the server list would talk to.
	socketOf := func(env map[string]string, args ...string) (string, string, int) {
		var got string
		swap := func(f *cmdutil.Factory) *cli.Command {
			for k, v := range env {
				t.Setenv(k, v)
			}
			return &cli.Command{Name: "list", Action: func(*cli.Context) error { got = f.Socket; return nil }}
		}
		_, stderr, code := runOwt(t, "", swap, append(args, "list")...)
		return got, stderr, code
	}
	uid := strconv.Itoa(os.Getuid())
	wd, _ := os.Getwd()

	got, _, code := socketOf(nil, "-S", "/run/s")
	require.Equal(t, cmdutil.ExitOK, code)
	require.Equal(t, "/run/s", got)
	got, _, _ = socketOf(nil, "-S", "rel/s")
	require.Equal(t, filepath.Join(wd, "rel/s"), got)
	got, _, _ = socketOf(nil, "-L", "other")
	require.Equal(t, filepath.Join(tmp, "tmux-"+uid, "other"), got)
	got, _, _ = socketOf(map[string]string{SocketEnv: "/env/s"})
	require.Equal(t, "/env/s", got)
	got, _, _ = socketOf(map[string]string{SocketEnv: "/env/s", "TMUX": "/tmp/tmux-1/default,1,0"})
	require.Equal(t, "", got, "inside tmux, $TMUX names the server")
	got, _, _ = socketOf(map[string]string{SocketEnv: "/env/s"}, "-L", "x")
	require.Equal(t, filepath.Join(tmp, "tmux-"+uid, "x"), got)

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-L", "a", "-S", "/b"}, "owt: -L and -S both name a tmux server: give one\n"},
		{[]string{"-L", "a/b"}, "owt: -L takes a socket name without '/' (use -S PATH for a path)\n"},
		{[]string{"-L", ""}, "owt: -L and -S need a value\n"},
	} {
		_, stderr, code := socketOf(nil, c.args...)
		require.Equal(t, cmdutil.ExitUsage, code, c.args)
		require.Equal(t, c.want, stderr, c.args)
	}
}
