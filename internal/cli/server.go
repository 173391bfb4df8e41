package cli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/tmux"
)

// SocketEnv names a tmux server socket for owt run outside tmux, like
// tmux -S (inside tmux, $TMUX names the server, as it does for tmux).
const SocketEnv = "OWT_TMUX_SOCKET"

// serverSocket is the socket chosen by -L/-S or OWT_TMUX_SOCKET; empty
// means tmux's own choice ($TMUX, else the default socket).
var serverSocket string

func serverFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "L", Usage: "use the tmux server of socket `NAME`, as tmux -L does"},
		&cli.StringFlag{Name: "S", Usage: "use the tmux server of socket `PATH`, as tmux -S does (also " + SocketEnv + ")"},
	}
}

// chooseServer picks the tmux server every command talks to: -S PATH,
// else -L NAME, else $TMUX when owt runs inside tmux, else
// $OWT_TMUX_SOCKET, else tmux's default socket.
func chooseServer(c *cli.Context) error {
	if c.IsSet("L") && c.IsSet("S") {
		return usagef("-L and -S both name a tmux server: give one")
	}
	switch {
	case c.String("S") != "":
		serverSocket = c.String("S")
	case c.String("L") != "":
		name := c.String("L")
		if strings.Contains(name, "/") {
			return usagef("-L takes a socket name without '/' (use -S PATH for a path)")
		}
		serverSocket = tmux.NamedSocket(name)
	case c.IsSet("L") || c.IsSet("S"):
		return usagef("-L and -S need a value")
	case !tmux.Inside():
		serverSocket = os.Getenv(SocketEnv)
	}
	if serverSocket != "" {
		if abs, err := filepath.Abs(serverSocket); err == nil {
			serverSocket = abs
		}
	}
	return nil
}

// tmuxClient is the client of the server chosen for this run.
func tmuxClient() *tmux.Client {
	tm := tmux.New()
	tm.Socket = serverSocket
	return tm
}
