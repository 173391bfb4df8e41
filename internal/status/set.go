package status

import (
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Set records a status change for the worktree called name and
// publishes it to tmux. exitCode is kept only with state.Exited.
func Set(w *workspace.Ledger, name string, st state.Status, src state.Source, exitCode *int) (*state.Record, error) {
	rec, _, err := SetAt(w, name, st, src, exitCode, w.Now())
	return rec, err
}

// SetAt records a status that an event at time at reported. An
// event older than the record's last one is stale and changes nothing:
// hooks of one agent run in order, but their processes can reach the state
// lock out of order. It reports whether the status (or its source or exit
// code) changed; only then is it published.
func SetAt(w *workspace.Ledger, name string, st state.Status, src state.Source, exitCode *int, at time.Time) (*state.Record, bool, error) {
	rec, changed, err := record(w, name, st, src, exitCode, at)
	if changed {
		PublishCurrent(w, name)
	}
	return rec, changed, err
}

// record is SetAt without publishing.
func record(w *workspace.Ledger, name string, st state.Status, src state.Source, exitCode *int, at time.Time) (*state.Record, bool, error) {
	return w.ChangeStatus(name, func(*state.Record) (state.StatusChange, bool) {
		return state.StatusChange{Status: st, Source: src, ExitCode: exitCode, At: at}, true
	})
}
