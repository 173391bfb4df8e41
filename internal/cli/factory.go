package cli

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// factory is what every command of one run of owt shares, in the manner
// of gh's cmdutil.Factory: the streams, and the tmux server chosen by
// -L/-S (set by chooseServer before any command runs). Main makes one and
// hands it to each command as it is built; nothing lives in package
// globals, so a test can run owt in-process with its own streams.
type factory struct {
	io *IOStreams
	// socket is the server chosen by -L/-S or OWT_TMUX_SOCKET; empty means
	// tmux's own choice ($TMUX, else the default socket).
	socket string
}

// tmux is the client of the server chosen for this run.
func (f *factory) tmux() *tmux.Client {
	tm := tmux.New()
	tm.Socket = f.socket
	return tm
}

// openWorkspace opens the repository of the current directory.
func (f *factory) openWorkspace() (*workspace.Workspace, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	w, err := workspace.Open(wd, f.tmux())
	if err != nil {
		return nil, err
	}
	return w, nil
}

// namedRecord opens the current repository and finds the worktree named
// by the command's one argument; verb names the command in the usage error.
func (f *factory) namedRecord(c *cli.Context, verb string) (*workspace.Workspace, *state.Record, error) {
	if c.NArg() != 1 {
		return nil, nil, usagef("%s takes one NAME", verb)
	}
	w, err := f.openWorkspace()
	if err != nil {
		return nil, nil, err
	}
	rec, err := w.Get(c.Args().First())
	if err != nil {
		return nil, nil, err
	}
	return w, rec, nil
}
