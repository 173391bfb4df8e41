package popups

import (
	"fmt"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// chooseTarget picks the worktree of the session (or folder) the popup was
// opened from; anywhere else it asks with a picker. The desk, with that
// worktree's repository opened, acts for the popup's client: the merge
// and delete popups run the control popup's verbs.
func chooseTarget(tm *tmux.Client, s Screen, verb string) (*state.Record, *liveDesk, error) {
	h, dir := here(tm)
	recs, err := workspace.AllRecords()
	if err != nil {
		return nil, nil, err
	}
	r := lifecycle.RecordHere(recs, h.SessionName, dir)
	if r == nil {
		a, err := loadAgents(tm)
		if err != nil {
			return nil, nil, err
		}
		// The hosts' agents too, as their streams last said (no ssh call
		// for the first frame); the one chosen is asked about afresh.
		a.addHosts(state.HostStatuses())
		it, err := pick(tm, s, a, pickOptions{
			prompt:       verb + "> ",
			header:       fmt.Sprintf("Which worktree to %s? Enter: choose, Esc: close", verb),
			narrowHeader: fmt.Sprintf("Which to %s? Enter, or Esc", verb),
			preview:      true,
			startOn:      startOn(verb),
		})
		if err != nil {
			return nil, nil, err
		}
		if it.Host != "" {
			return chooseRemote(tm, h, it)
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

// startOn is where the picker of verb puts its cursor first: merge on
// the first agent ready to land; the others on the first row.
func startOn(verb string) func(lifecycle.Item) bool {
	if verb == "merge" {
		return readyToLand
	}
	return nil
}

// chooseRemote is chooseTarget's answer for an agent of a host: its
// stand-in (NAME@HOST, standIn) in the local repository whose clone it
// runs in, as its host says now.
func chooseRemote(tm *tmux.Client, h tmux.Here, it lifecycle.Item) (*state.Record, *liveDesk, error) {
	cfg, err := config.Load("")
	if err != nil {
		return nil, nil, err
	}
	host, err := hosts.Open(cfg, it.Host)
	if err != nil {
		return nil, nil, err
	}
	repo := control.LocalRepo(host, it.Repo)
	if repo == "" {
		return nil, nil, fmt.Errorf("%s@%s runs in %s there, which no local repository's [hosts.%s] repos names", it.Name, it.Host, it.Repo, it.Host)
	}
	d := newLiveDesk(tm, h)
	r, err := d.Get(repo, it.Name+"@"+it.Host)
	if err != nil {
		return nil, nil, err
	}
	return r, d, nil
}
