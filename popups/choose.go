package popups

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/inventory"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// target is the worktree a merge or delete popup acts on, with its
// repository opened.
type target struct {
	w   *workspace.Workspace
	rec *state.Record
}

// chooseTarget picks the worktree of the session (or folder) the popup was
// opened from; anywhere else it asks with a picker.
func chooseTarget(tm *tmux.Client, verb string) (target, tmux.Here, error) {
	h, dir := here(tm)
	recs, err := workspace.AllRecords()
	if err != nil {
		return target{}, h, err
	}
	r := inventory.RecordHere(recs, h.SessionName, dir)
	if r == nil {
		a, err := loadAgents(tm)
		if err != nil {
			return target{}, h, err
		}
		it, err := pick(tm, a, pickOptions{
			prompt:  verb + "> ",
			header:  fmt.Sprintf("Which worktree to %s? Enter: choose, Esc: close", verb),
			preview: true,
		})
		if err != nil {
			return target{}, h, err
		}
		if r = a.record(it); r == nil {
			return target{}, h, fmt.Errorf("%s vanished while the picker was open", it.Name)
		}
	}
	w, err := openRecordWorkspace(tm, r)
	if err != nil {
		return target{}, h, err
	}
	return target{w: w, rec: r}, h, nil
}
