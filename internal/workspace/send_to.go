package workspace

import "github.com/owt-tmux/owt/internal/state"

// SendTo is owt send to one agent, with the error as it is (ErrNotReady,
// ErrNotRunning, ErrNotSubmitted, …) so a caller can tell "not now" from
// "cannot": the same lock, checks and delivery as SendWith.
func (w *Workspace) SendTo(r *state.Record, text string, o SendOptions) error {
	_, err := w.sendOne(r, text, o)
	return err
}
