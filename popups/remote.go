package popups

import (
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hosts"

	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// An agent on a host stands in the popups as a record named NAME@HOST
// (the name the user types: owt merge NAME@HOST), of the local repository
// whose clone it runs in. Local names never hold an @, so the desk knows
// it by its name and runs each verb on it through control's remote verbs
// (owt on the host, over its one ssh connection); the popups' questions,
// rules and words are the ones of a local agent.

// standIn is the record an agent of a host stands in as.
func standIn(repo string, it lifecycle.Item) *state.Record {
	return &state.Record{Name: it.Name + "@" + it.Host, Repo: repo, Branch: it.Branch, Base: it.Base,
		Path: it.Path, Session: it.Session, Tool: it.Tool, Status: state.Status(it.Status),
		StatusSince: it.StatusSince, CreatedAt: it.CreatedAt}
}

// remoteName splits a stand-in's name: NAME and HOST, ok when it is one.
func remoteName(rec *state.Record) (name, host string, ok bool) {
	name, host, ok = strings.Cut(rec.Name, "@")
	return name, host, ok && host != ""
}

// isRemote says rec stands in for an agent on a host.
func isRemote(rec *state.Record) bool { _, _, ok := remoteName(rec); return ok }

// remote is the workspace, host and agent name of a stand-in.
func (d *liveDesk) remote(rec *state.Record) (*workspace.Workspace, *hosts.Host, string, error) {
	name, host, _ := remoteName(rec)
	w, err := d.open(rec.Repo)
	if err != nil {
		return nil, nil, "", err
	}
	h, err := hosts.Open(w.Config, host)
	if err != nil {
		return nil, nil, "", err
	}
	return w, h, name, nil
}

// remoteGet is the stand-in of the agent of a host as the host says now.
func (d *liveDesk) remoteGet(repo, ref string) (*state.Record, error) {
	w, h, name, err := d.remote(&state.Record{Name: ref, Repo: repo})
	if err != nil {
		return nil, err
	}
	it, err := control.RemoteAgent(w, h, name)
	if err != nil {
		return nil, err
	}
	return standIn(repo, it), nil
}

func (d *liveDesk) remoteCheck(rec *state.Record) (land.Report, error) {
	w, h, name, err := d.remote(rec)
	if err != nil {
		return land.Report{}, err
	}
	return control.CheckRemote(w, h, name)
}

func (d *liveDesk) remoteLoss(rec *state.Record) (lifecycle.Loss, error) {
	w, h, name, err := d.remote(rec)
	if err != nil {
		return lifecycle.Loss{}, err
	}
	return control.RemoteLoss(w, h, name)
}

func (d *liveDesk) remoteFiles(rec *state.Record) ([]git.FileChange, error) {
	w, h, name, err := d.remote(rec)
	if err != nil {
		return nil, err
	}
	return control.RemoteChangedFiles(w, h, name)
}

func (d *liveDesk) remoteFileDiff(rec *state.Record, f git.FileChange) (string, error) {
	w, h, name, err := d.remote(rec)
	if err != nil {
		return "", err
	}
	return control.RemoteFileDiff(w, h, name, f.Path)
}

// remoteGoTo opens a window attached to the agent over ssh (Alt+s's way).
func (d *liveDesk) remoteGoTo(rec *state.Record) error {
	name, host, _ := remoteName(rec)
	return attachOnHost(d.tm, d.here.SessionID, lifecycle.Item{Name: name, Host: host, Session: rec.Session})
}

func (d *liveDesk) remoteLand(rec *state.Record, ship bool) (control.Landed, error) {
	w, h, name, err := d.remote(rec)
	if err != nil {
		return control.Landed{}, err
	}
	if ship {
		return control.ShipRemote(w, h, name, "", control.LandOptions{})
	}
	return control.MergeRemote(w, h, name, land.Options{}, control.LandOptions{})
}

func (d *liveDesk) remoteDelete(rec *state.Record, accept lifecycle.Loss) error {
	w, h, name, err := d.remote(rec)
	if err != nil {
		return err
	}
	return control.DeleteRemote(w, h, name, lifecycle.DeleteOptions{Accept: &accept})
}

func (d *liveDesk) remoteSend(rec *state.Record, text string) error {
	w, h, name, err := d.remote(rec)
	if err != nil {
		return err
	}
	results, err := control.SendRemote(w, h, name, text, false)
	if err != nil {
		return err
	}
	if r := results[0]; !r.Sent {
		return fmt.Errorf("not sent to %s: %s", r.Name, r.Err)
	}
	return nil
}

// notOnHost is the error of a verb the popups do not do for an agent on
// a host.
func notOnHost(rec *state.Record, how string) error {
	return fmt.Errorf("%s runs on a host: not from this board yet; %s", rec.Name, how)
}

// afterLanding says what follows a landing of rec, here or on a host.
func afterLanding(rec *state.Record) string {
	if name, host, ok := remoteName(rec); ok {
		return fmt.Sprintf("Its branch comes home from %s and merges here; afterwards %s is deleted on %s (its session %s, worktree and branch there).", host, name, host, rec.Session)
	}
	return fmt.Sprintf("Afterwards the session %s, the worktree and the branch are removed.", rec.Session)
}

// removalOf says what a delete of rec removes, here or on a host.
func removalOf(rec *state.Record) string {
	if _, host, ok := remoteName(rec); ok {
		return fmt.Sprintf("On %s, session %s, worktree %s and branch %s will be removed.", host, rec.Session, rec.Path, rec.Branch)
	}
	return fmt.Sprintf("Session %s, worktree %s and branch %s will be removed.", rec.Session, rec.Path, rec.Branch)
}
