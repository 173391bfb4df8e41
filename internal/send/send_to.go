package send

import (
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// To is owt send to one agent, with the error as it is (ErrNotReady,
// workspace.ErrNotRunning, ErrNotSubmitted, …) so a caller can tell "not now" from
// "cannot": the same lock, checks and delivery as EachWith.
func To(w *workspace.Workspace, r *state.Record, msg untrusted.Untrusted, o Options) error {
	_, err := sendOne(w, r, msg, o)
	return err
}
