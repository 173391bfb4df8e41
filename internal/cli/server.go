package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/tmux"
)

// SocketEnv names a tmux server socket for owt run outside tmux, like
// tmux -S (inside tmux, $TMUX names the server, as it does for tmux).
const SocketEnv = "OWT_TMUX_SOCKET"

// ServerFlags are the flags that choose the tmux server (-L, -S) and
// trace commands, of owt and of owt-mcp alike.
func ServerFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "L", Usage: "use the tmux server of socket `NAME`, as tmux -L does"},
		&cli.StringFlag{Name: "S", Usage: "use the tmux server of socket `PATH`, as tmux -S does (also " + SocketEnv + ")"},
		&cli.BoolFlag{Name: "trace", Usage: "print every git, tmux and gh command owt runs, with its duration, to stderr (also " + proc.TraceEnv + "=1)"},
	}
}

// ChooseServer picks the tmux server every command talks to: -S PATH,
// else -L NAME, else $TMUX when owt runs inside tmux, else
// $OWT_TMUX_SOCKET, else tmux's default socket.
func ChooseServer(f *cmdutil.Factory, c *cli.Context) error {
	if c.Bool("trace") {
		proc.TraceTo(f.IO.ErrOut)
	}
	if c.IsSet("L") && c.IsSet("S") {
		return cmdutil.Usagef("-L and -S both name a tmux server: give one")
	}
	switch {
	case c.String("S") != "":
		f.Socket = c.String("S")
	case c.String("L") != "":
		name := c.String("L")
		if strings.Contains(name, "/") {
			return cmdutil.Usagef("-L takes a socket name without '/' (use -S PATH for a path)")
		}
		f.Socket = tmux.NamedSocket(name)
	case c.IsSet("L") || c.IsSet("S"):
		return cmdutil.Usagef("-L and -S need a value")
	default:
		chooseDefaultServer(f)
		return nil
	}
	absSocket(f)
	return nil
}

// chooseDefaultServer is the server with neither -L nor -S: the one owt
// runs inside, else $OWT_TMUX_SOCKET's, else tmux's default.
func chooseDefaultServer(f *cmdutil.Factory) {
	f.Socket = ""
	if !tmux.Inside() {
		f.Socket = os.Getenv(SocketEnv)
		absSocket(f)
	}
}

func absSocket(f *cmdutil.Factory) {
	if f.Socket != "" {
		if abs, err := filepath.Abs(f.Socket); err == nil {
			f.Socket = abs
		}
	}
}
