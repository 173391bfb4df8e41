package popups

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/inventory"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// chooseTarget picks the worktree of the session (or folder) the popup was
// opened from; anywhere else it asks with a picker. The desk, with that
// worktree's repository opened, acts for the popup's client: the merge
// and delete popups run the control popup's verbs.
func chooseTarget(tm *tmux.Client, verb string) (*state.Record, *liveDesk, error) {
	h, dir := here(tm)
	recs, err := workspace.AllRecords()
	if err != nil {
		return nil, nil, err
	}
	r := inventory.RecordHere(recs, h.SessionName, dir)
	if r == nil {
		a, err := loadAgents(tm)
		if err != nil {
			return nil, nil, err
		}
		it, err := pick(tm, a, pickOptions{
			prompt:  verb + "> ",
			header:  fmt.Sprintf("Which worktree to %s? Enter: choose, Esc: close", verb),
			preview: true,
		})
		if err != nil {
			return nil, nil, err
		}
		if r = a.record(it); r == nil {
			return nil, nil, fmt.Errorf("%s vanished while the picker was open", it.Name)
		}
	}
	d := newLiveDesk(tm, h)
	if _, err := d.open(r.Repo); err != nil {
		return nil, nil, err
	}
	return r, d, nil
}
