package cmdutil

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Factory is what every command of one run of owt shares, in the manner
// of gh's cmdutil.Factory: the streams, and the tmux server chosen by
// -L/-S (set before any command runs). Main makes one and hands it to
// each command as it is built; nothing lives in package globals, so a
// test can run owt in-process with its own streams.
type Factory struct {
	IO *IOStreams
	// Socket is the server chosen by -L/-S or OWT_TMUX_SOCKET; empty means
	// tmux's own choice ($TMUX, else the default socket).
	Socket string
}

// Tmux is the client of the server chosen for this run.
func (f *Factory) Tmux() *tmux.Client {
	tm := tmux.New()
	tm.Socket = f.Socket
	return tm
}

// OpenWorkspace opens the repository of the current directory.
func (f *Factory) OpenWorkspace() (*workspace.Workspace, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	w, err := workspace.Open(wd, f.Tmux())
	if err != nil {
		return nil, err
	}
	return w, nil
}

// NamedRecord opens the current repository and finds the worktree named
// by the command's one argument; verb names the command in the usage error.
func (f *Factory) NamedRecord(c *cli.Context, verb string) (*workspace.Workspace, *state.Record, error) {
	if c.NArg() != 1 {
		return nil, nil, Usagef("%s takes one NAME", verb)
	}
	w, err := f.OpenWorkspace()
	if err != nil {
		return nil, nil, err
	}
	rec, err := w.Get(c.Args().First())
	if err != nil {
		return nil, nil, err
	}
	return w, rec, nil
}
