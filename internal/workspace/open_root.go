package workspace

import (
	"errors"
	"io"
	"os"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/tmux"
)

// OpenRoot opens the repository whose main checkout is root, as recorded
// in a state file, without asking git. A config that does not load falls
// back to the defaults and is returned as the error beside a usable
// workspace, so one bad .owt.toml cannot stop the monitor.
func OpenRoot(root string, tm *tmux.Client) (*Workspace, error) {
	w := &Workspace{Ledger: *NewLedger(root, tm), Log: io.Discard, Config: config.Defaults()}
	w.Store.Rebuild = w.rebuild
	if self, err := os.Executable(); err == nil {
		w.Self = self
	}
	var cfgErr error
	if cfg, err := config.Load(root); err == nil {
		w.Config = cfg
	} else {
		cfgErr = configError(err)
	}
	tools, err := Tools(w.Config)
	if err != nil {
		tools, _ = agent.Profiles(config.Defaults())
		cfgErr = errors.Join(cfgErr, configError(locate(root, err)))
	}
	w.Tools = tools
	return w, cfgErr
}
