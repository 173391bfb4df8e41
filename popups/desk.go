package popups

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/git"

	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/react"
	"github.com/owt-tmux/owt/internal/resolve"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// desk is all a popup that acts reads and does outside itself: the board,
// git's figures and diffs, and the verbs, which are internal/control's
// (the ones owt's commands run), so Alt+m, Alt+d and the control popup
// land and delete alike. The popups run on liveDesk; the control popup's
// tests give it fixtures and record the verbs it calls.
type desk interface {
	Load(scope string) (control.Snapshot, error)
	RefreshStats(recs []*state.Record) map[state.Key]lifecycle.Stats
	Queues(recs []*state.Record) map[string]land.Queue
	Get(repo, name string) (*state.Record, error)
	Check(rec *state.Record) (land.Report, error)
	WhatWouldBeLost(rec *state.Record) (lifecycle.Loss, error)
	ChangedFiles(rec *state.Record) ([]git.FileChange, error)
	FileDiff(rec *state.Record, f git.FileChange, color bool) (string, error)
	DiffPager() []string

	// GoTo moves the popup's client to rec's session (made again on its
	// worktree if tmux lost it).
	GoTo(rec *state.Record) error
	// Land ships or merges rec and removes its worktree, moving the
	// popup's client off its session right before. With [review]
	// enabled the AI review runs first and a fail or no verdict refuses
	// (*control.ReviewRefused) unless accepted is the review the user
	// said yes to.
	Land(rec *state.Record, ship bool, accepted *land.ReviewResult) (control.Landed, error)
	// Delete removes rec, losing at most accept, moving the popup's client
	// off its session first.
	Delete(rec *state.Record, accept lifecycle.Loss) error
	Send(rec *state.Record, text string) error
	// Resolve hands rec's predicted conflict with its base to its agent,
	// in its worktree (owt resolve), or says how the one under way stands.
	Resolve(rec *state.Record) (string, error)
	// Dismiss stops rec's escalated reactions needing the user; it returns
	// the reactions dismissed.
	Dismiss(rec *state.Record) ([]string, error)
	PauseRun(name string) (changed bool, err error)
	TaskVerb(runName, verb, id string) ([]run.Event, error)
	// Tell shows msg on the popup's client (tmux display-message).
	Tell(msg string)
}

// liveDesk is the desk of a real popup: tmux, git and the records.
type liveDesk struct {
	tm   *tmux.Client
	here tmux.Here

	mu         sync.Mutex
	workspaces map[string]*workspace.Workspace
}

func newLiveDesk(tm *tmux.Client, h tmux.Here) *liveDesk {
	return &liveDesk{tm: tm, here: h, workspaces: map[string]*workspace.Workspace{}}
}

// open is the workspace of a repo, opened once.
func (d *liveDesk) open(repo string) (*workspace.Workspace, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if w, ok := d.workspaces[repo]; ok {
		return w, nil
	}
	w, err := openWorkspace(repo, d.tm)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", repo, err)
	}
	d.workspaces[repo] = w
	return w, nil
}

func (d *liveDesk) Load(scope string) (control.Snapshot, error) { return control.Load(d.tm, scope) }

func (d *liveDesk) RefreshStats(recs []*state.Record) map[state.Key]lifecycle.Stats {
	return lifecycle.RefreshStats(recs)
}

func (d *liveDesk) Queues(recs []*state.Record) map[string]land.Queue {
	return control.Queues(recs, d.open)
}

func (d *liveDesk) Get(repo, name string) (*state.Record, error) {
	if strings.Contains(name, "@") {
		return d.remoteGet(repo, name)
	}
	w, err := d.open(repo)
	if err != nil {
		return nil, err
	}
	return w.Get(name)
}

func (d *liveDesk) Check(rec *state.Record) (land.Report, error) {
	if isRemote(rec) {
		return d.remoteCheck(rec)
	}
	w, err := d.open(rec.Repo)
	if err != nil {
		return land.Report{}, err
	}
	return control.MergeContext(w).Check(rec, "")
}

func (d *liveDesk) WhatWouldBeLost(rec *state.Record) (lifecycle.Loss, error) {
	if isRemote(rec) {
		return d.remoteLoss(rec)
	}
	w, err := d.open(rec.Repo)
	if err != nil {
		return lifecycle.Loss{}, err
	}
	return lifecycle.Of(w).WhatWouldBeLost(rec)
}

func (d *liveDesk) ChangedFiles(rec *state.Record) ([]git.FileChange, error) {
	if isRemote(rec) {
		return d.remoteFiles(rec)
	}
	return git.ChangedFiles(rec.Path, diffBase(rec))
}

func (d *liveDesk) FileDiff(rec *state.Record, f git.FileChange, color bool) (string, error) {
	if isRemote(rec) {
		return d.remoteFileDiff(rec, f)
	}
	return git.FileDiff(rec.Path, diffBase(rec), f, color)
}

func (d *liveDesk) DiffPager() []string {
	p, err := d.tm.ShowOption("", OptDiffPager)
	if err != nil {
		return nil
	}
	return strings.Fields(p)
}

func (d *liveDesk) GoTo(rec *state.Record) error {
	if isRemote(rec) {
		return d.remoteGoTo(rec)
	}
	w, err := d.open(rec.Repo)
	if err != nil {
		return err
	}
	id, err := lifecycle.Of(w).EnsureSession(rec)
	if err != nil {
		return err
	}
	if err := d.tm.SwitchClientOf(d.here.Client, id); err != nil {
		return fmt.Errorf("switch to %s: %w", rec.Session, err)
	}
	return nil
}

func (d *liveDesk) Land(rec *state.Record, ship bool, accepted *land.ReviewResult) (control.Landed, error) {
	if isRemote(rec) {
		return d.remoteLand(rec, ship)
	}
	w, err := d.open(rec.Repo)
	if err != nil {
		return control.Landed{}, err
	}
	how := control.LandOptions{Leaving: func() { leaveSession(d.tm, d.here, rec) }, Accepted: accepted}
	if ship {
		return control.Ship(w, rec, "", how)
	}
	return control.Merge(w, rec, land.Options{}, how)
}

func (d *liveDesk) Delete(rec *state.Record, accept lifecycle.Loss) error {
	if isRemote(rec) {
		return d.remoteDelete(rec, accept)
	}
	w, err := d.open(rec.Repo)
	if err != nil {
		return err
	}
	return control.Delete(w, rec.Name, lifecycle.DeleteOptions{Accept: &accept,
		Leaving: func() { leaveSession(d.tm, d.here, rec) }})
}

func (d *liveDesk) Send(rec *state.Record, msg string) error {
	if isRemote(rec) {
		return d.remoteSend(rec, msg)
	}
	w, err := d.open(rec.Repo)
	if err != nil {
		return err
	}
	return send.To(w, rec, untrusted.From(msg), send.Options{})
}

func (d *liveDesk) Resolve(rec *state.Record) (string, error) {
	if isRemote(rec) {
		return "", notOnHost(rec, "resolve in its worktree there (owt switch "+rec.Name+")")
	}
	w, err := d.open(rec.Repo)
	if err != nil {
		return "", err
	}
	st, v, started, err := control.Resolve(w, rec, resolve.Options{})
	switch {
	case errors.Is(err, resolve.ErrNoConflict):
		return rec.Name + ": " + err.Error(), nil
	case err != nil:
		return "", err
	case started:
		if st.How == "" {
			return "", errors.New(st.Line())
		}
		return st.Line(), nil
	case !v.Ready:
		return "", errors.New(v.Line())
	}
	return v.Line(), nil
}

func (d *liveDesk) Dismiss(rec *state.Record) ([]string, error) {
	if isRemote(rec) {
		return nil, notOnHost(rec, "see its reactions with owt why "+rec.Name)
	}
	w, err := d.open(rec.Repo)
	if err != nil {
		return nil, err
	}
	dis, err := react.Dismiss(w, rec.Name, nil)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(dis.Dismissed))
	for i, x := range dis.Dismissed {
		names[i] = x.Reaction
	}
	return names, nil
}

func (d *liveDesk) PauseRun(name string) (bool, error) {
	return control.SetRunState(run.DefaultStore(), name, run.Paused)
}

func (d *liveDesk) TaskVerb(runName, verb, id string) ([]run.Event, error) {
	return control.TaskVerb(run.DefaultStore(), runName, verb, id)
}

func (d *liveDesk) Tell(msg string) { _ = d.tm.DisplayMessage(d.here.Client, msg) }

// leaveSession moves the client off the session about to go, so it is not
// detached.
func leaveSession(tm *tmux.Client, h tmux.Here, rec *state.Record) {
	if h.SessionName == rec.Session {
		if other := otherSession(tm, rec.Session, rec.Repo); other != "" {
			_ = tm.SwitchClientOf(h.Client, other)
		}
	}
}

// otherSession is where a client goes when its session is deleted: a
// session in the main checkout if there is one, else any other session.
func otherSession(tm *tmux.Client, leaving, repo string) string {
	ss, _ := tm.Sessions()
	fallback := ""
	for _, s := range ss {
		if s.Name == leaving {
			continue
		}
		if s.Path == repo {
			return s.ID
		}
		if fallback == "" {
			fallback = s.ID
		}
	}
	return fallback
}
