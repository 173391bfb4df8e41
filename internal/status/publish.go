package status

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/gofrs/flock"

	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Publishing a status to tmux costs a tmux call or two (~10 ms with many
// sessions: every set-option redraws every client). Two processes that
// changed a record one after the other can reach tmux in the other order,
// so publishing is serialized by one lock and each publisher shows the
// record (and the summary) as the state files have them once it holds the
// lock, not as they were when it changed them: every change is followed by
// a publisher taking the lock after it, so the last one to take it shows
// the newest status.
//
// Nothing waits for tmux without limit: each publish's tmux calls share
// publishTimeout (a stopped or wedged server must not stall an agent's
// hook or the monitor), and the lock is waited for at most publishLockWait.
// A hook waits for neither: it rings the monitor's bell (daemon.Bell: the
// monitor publishes), else starts "owt _publish" (the status package's
// publish).

const (
	publishTimeout  = 2 * time.Second
	publishLockWait = 5 * time.Second
)

// publishLockPath is the one publish lock of all repositories: the status
// bar's summary spans them.
func publishLockPath() string { return filepath.Join(state.Dir(), "publish.lock") }

// lockPublish takes the publish lock, waiting at most wait.
func lockPublish(wait time.Duration) (unlock func(), err error) {
	if err := os.MkdirAll(state.Dir(), 0o700); err != nil {
		return nil, fmt.Errorf("create state dir: %w", err)
	}
	lock := flock.New(publishLockPath())
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ok, err := lock.TryLockContext(ctx, 5*time.Millisecond)
	if !ok {
		return nil, fmt.Errorf("wait for the publish lock %s: %w", publishLockPath(), err)
	}
	return func() { _ = lock.Unlock() }, nil
}

// withPublishLock runs fn holding the publish lock. When the lock is not
// had in time (a publisher is wedged), fn runs anyway: its tmux calls are
// bounded, and a status shown slightly out of order beats none.
func withPublishLock(fn func()) {
	unlock, err := lockPublish(publishLockWait)
	if err != nil {
		owtlog.Errorf("publish", owtlog.Fields{Event: "publish"}, "%v; publishing without it", err)
	} else {
		defer unlock()
	}
	fn()
}

// PublishCurrent publishes the record called name, under the publish lock.
func PublishCurrent(w *workspace.Ledger, name string) {
	withPublishLock(func() { publishHeld(w, name) })
}

// publishHeld publishes the record called name as the state file has it
// now. The caller holds the publish lock.
func publishHeld(w *workspace.Ledger, name string) {
	f, err := w.Store.Load()
	if err != nil {
		owtlog.Errorf("publish", owtlog.Fields{Event: "publish", Agent: name}, "%v", err)
		return
	}
	if r, ok := f.Records[name]; ok {
		Publish(w, r)
	}
}

// Publish puts a record's status into tmux: the session's @owt-status
// (for users styling their own status line) and the status-bar summary
// beside it, in one tmux call within publishTimeout. Setting an option
// redraws every client's status line (tmux ≥ 3.2), so no refresh-client
// is needed. tmux being unreachable is not an error: the state file is
// the truth.
func Publish(w *workspace.Ledger, rec *state.Record) {
	if rec.Session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
	defer cancel()
	var sets []tmux.OptionSet
	if recs, err := workspace.AllRecords(); err == nil {
		sets = append(sets, tmux.OptionSet{Options: Current(recs).Options()})
	}
	if rec.Swarm == nil {
		// (A swarm worker shares its host's session, whose @owt-status is
		// the host's: only the summary counts the worker.) "=name:" is
		// exactly that session (set-option takes a pane target, so the
		// ':' ends the session part): session names never hold ':' or
		// '.', and a new server reuses ids, so an id could name another
		// session. Last: a session killed meanwhile fails only its own.
		sets = append(sets, tmux.OptionSet{Target: "=" + rec.Session + ":", Options: map[string]string{"@owt-status": string(rec.Status)}})
	}
	_ = w.Tmux.SetOptionSetsContext(ctx, sets...)
}

// PublishRecord is "owt _publish": it publishes the record called name of
// the repository rooted at repo, under the publish lock.
func PublishRecord(tm *tmux.Client, repo, name string) {
	PublishCurrent(workspace.NewLedger(repo, tm), name)
}

// PublishSummaryLocked rewrites the status-bar summary under the publish
// lock, so it cannot overwrite a newer one a publisher just wrote; neither
// the lock nor tmux is waited for without limit. The monitor calls it.
func PublishSummaryLocked(tm *tmux.Client) error {
	var err error
	withPublishLock(func() {
		ctx, cancel := context.WithTimeout(context.Background(), publishTimeout)
		defer cancel()
		err = publishSummary(ctx, tm)
	})
	return err
}

// SessionOptions are the user options owt puts on a worktree's session
// when it creates it. Besides the status bar's @owt-status, they say what
// the session is, so a state file lost to corruption can be rebuilt from
// tmux (see rebuild). They prove nothing about ownership: anyone can set
// them; the record's session id and server identity do that.
func SessionOptions(rec *state.Record) map[string]string {
	return map[string]string{
		"@owt-status": string(rec.Status),
		"@owt-name":   rec.Name,
		"@owt-repo":   rec.Repo,
		"@owt-tool":   rec.Tool,
		"@owt-base":   rec.Base,
		"@owt-port":   strconv.Itoa(rec.Port),
		// Who spawned it (owt mcp), so a rebuilt state file keeps the
		// spawn limits and the tree of owt list.
		"@owt-spawner":     rec.Spawner,
		"@owt-spawn-depth": strconv.Itoa(rec.SpawnDepth),
		// Its life (state.Record.Life), so a rebuilt record is the same
		// agent: its queued messages and usage stay its own.
		"@owt-life": rec.Life,
	}
}
