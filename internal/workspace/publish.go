package workspace

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// Publishing a status to tmux costs a tmux call or two (~10 ms with many
// sessions: every set-option redraws every client). Two processes that
// changed the same record one after the other can reach tmux in the other
// order, so publishing is serialized by a per-repository lock and each
// publisher shows the record as the state file has it then, not as it was
// when it changed it: the last one to publish shows the newest status.

func (w *Workspace) publishLockPath() string { return w.Store.Path + ".publish.lock" }

// publishCurrent publishes the record called name, waiting for it.
func (w *Workspace) publishCurrent(name string) {
	lock := flock.New(w.publishLockPath())
	if err := lock.Lock(); err == nil {
		defer func() { _ = lock.Unlock() }()
	}
	w.PublishHeld(name)
}

// PublishHeld publishes the record called name as the state file has it
// now. The caller holds the publish lock ("owt _publish" inherits it).
func (w *Workspace) PublishHeld(name string) {
	f, err := w.Store.Load()
	if err != nil {
		return
	}
	if r, ok := f.Records[name]; ok {
		w.publish(r)
	}
}

// publishDetached hands publishing to a detached "owt _publish" so the
// caller (a hook the agent waits for) need not wait for tmux. The child
// inherits the publish lock, taken here, and holds it until it is done, so
// publishers still go one at a time and in order. If the child cannot be
// started, this publishes itself.
func (w *Workspace) publishDetached(name string) {
	lockFile, err := os.OpenFile(w.publishLockPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		w.publishCurrent(name)
		return
	}
	defer lockFile.Close()
	if err := syscall.Flock(int(lockFile.Fd()), syscall.LOCK_EX); err != nil {
		w.publishCurrent(name)
		return
	}
	self, err := os.Executable()
	if err == nil {
		cmd := exec.Command(self, "_publish", w.Repo.Root, name)
		cmd.ExtraFiles = []*os.File{lockFile} // the lock goes with it
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err = cmd.Start(); err == nil {
			_ = cmd.Process.Release()
			return
		}
	}
	w.PublishHeld(name)
}

// publish puts a record's status into tmux: the session's @owt-status
// (for users styling their own status line) in one tmux call, and the
// status-bar summary beside it. Setting an option redraws every client's
// status line (tmux ≥ 3.2), so no refresh-client is needed. tmux being
// unreachable is not an error: the state file is the truth.
func (w *Workspace) publish(rec *state.Record) {
	if rec.Session == "" {
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.publishSummary()
	}()
	// "=name:" is exactly that session (set-option takes a pane target, so
	// the ':' ends the session part): session names never hold ':' or '.',
	// and a new server reuses ids, so an id could name another session.
	// Only @owt-status changes (the session got the others when it was
	// created): each set-option makes tmux redraw every client.
	_ = w.Tmux.SetOption("="+rec.Session+":", "@owt-status", string(rec.Status))
	wg.Wait()
}

// PublishRecord is "owt _publish": it publishes the record called name of
// the repository rooted at repo, under the publish lock its parent holds.
func PublishRecord(tm *tmux.Client, repo, name string) {
	w := &Workspace{Repo: git.Repo{Root: repo}, Store: state.ForRepo(repo), Tmux: tm, Log: io.Discard, Now: time.Now}
	w.PublishHeld(name)
}

// sessionOptions are the user options owt puts on a worktree's session
// when it creates it.
func sessionOptions(rec *state.Record) map[string]string {
	return map[string]string{
		"@owt-status": string(rec.Status),
		"@owt-name":   rec.Name,
		"@owt-repo":   rec.Repo,
	}
}
