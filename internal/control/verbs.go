package control

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace"
)

// The verbs of the control plane. owt's commands call the same functions,
// so a key in the popup and its command always do the same thing.

// MergeContext is the merge package's view of a workspace: its git repo,
// its records, and what counts as uncommitted work there.
func MergeContext(w *workspace.Workspace) *land.Context {
	return &land.Context{Git: w.Repo, Records: w.Records, WorkFiles: lifecycle.WorkFiles,
		EditedCopies: lifecycle.EditedCopies, SetBaseCommit: w.SetBaseCommit}
}

// Landed is what a ship or merge did, and whether the worktree was
// removed afterwards (the JSON of owt merge and owt ship).
type Landed struct {
	land.ShipResult
	Removed bool   `json:"removed"`
	Kept    string `json:"kept,omitempty"` // why it was not removed
	// Stays says, for an in-place agent, that its checkout and branch
	// stay: its teardown ends only the session and the record.
	Stays string `json:"stays,omitempty"`
	// Review is the AI review made before landing, when one was.
	Review *land.ReviewResult `json:"review,omitempty"`
}

// LandOptions are how a ship or merge ends.
type LandOptions struct {
	Keep  bool // keep the worktree, session and branch after landing
	Force bool // land while the agent works or waits for the user
	// Leaving, when set, runs right before the teardown, only when there
	// is one: a popup moves its client off the session about to go, so the
	// client is not detached, and not when nothing is removed.
	Leaving func()
	// Review asks for the AI review before landing ([review] enabled
	// asks for it always); AcceptReview lands even when it fails or is
	// unavailable (the user said yes). ReviewLog hears a review start.
	Review       bool
	AcceptReview bool
	ReviewLog    io.Writer
	// Accepted is a review the user saw and said yes to (a popup's
	// confirm step): the landing goes on despite it while what would land
	// and its base are the trees it reviewed, without reviewing again; on
	// other trees the review is made again and its verdict holds.
	Accepted *land.ReviewResult
}

// Ship commits everything in rec's worktree, merges it into its base and,
// unless o.Keep, removes the worktree, session and branch (owt ship).
// Unless o.Force, it refuses while the agent works or waits (RefuseBusy):
// right before the commit, the first thing it changes, so a face that asks
// the user first checks once before asking and need not check again.
func Ship(w *workspace.Workspace, rec *state.Record, message string, o LandOptions) (Landed, error) {
	release, rec, err := holdLanding(w, rec)
	if err != nil {
		return Landed{}, err
	}
	defer release()
	if err := refuseTesterEdits(w, rec, o.Force); err != nil {
		return Landed{}, err
	}
	mc := MergeContext(w)
	if !o.Force {
		mc.BeforeCommit = func(r *state.Record) error { return RefuseBusy(w, r, "shipping", false) }
	}
	var rev *land.ReviewResult
	mc.Gate = reviewGate(w, o, "shipped", &rev)
	res, err := mc.Ship(rec, message)
	if err != nil {
		return Landed{}, err
	}
	return finishLanding(w, Landed{ShipResult: res, Review: rev}, "shipped", o)
}

// Merge merges rec's branch as mo says and, unless o.Keep, removes the
// worktree (owt merge). Unless o.Force, it refuses while the agent works
// or waits, looking once as it starts (a face asking the user first looks
// before asking too: the agent may take up work while the user reads).
func Merge(w *workspace.Workspace, rec *state.Record, mo land.Options, o LandOptions) (Landed, error) {
	release, rec, err := holdLanding(w, rec)
	if err != nil {
		return Landed{}, err
	}
	defer release()
	if err := RefuseBusy(w, rec, "merging", o.Force); err != nil {
		return Landed{}, err
	}
	if err := refuseTesterEdits(w, rec, o.Force); err != nil {
		return Landed{}, err
	}
	mc := MergeContext(w)
	var rev *land.ReviewResult
	mc.Gate = reviewGate(w, o, "merged", &rev)
	res, err := mc.Merge(rec, mo)
	if err != nil {
		return Landed{}, err
	}
	return finishLanding(w, Landed{ShipResult: land.ShipResult{Result: res}, Review: rev}, "merged", o)
}

// Sync brings the base's new commits into rec's branch (owt sync); rebase
// and leave are land.Context.Sync's. Unless force, it refuses while the
// agent works or waits: a merge or rebase under it changes the files it
// is editing mid-turn.
func Sync(w *workspace.Workspace, rec *state.Record, rebase, leave, force bool) (land.SyncResult, error) {
	if err := RefuseBusyFor(w, rec, "syncing now would change its files mid-turn", force); err != nil {
		return land.SyncResult{Name: rec.Name, Branch: rec.Branch, Base: rec.Base}, err
	}
	return MergeContext(w).Sync(rec, rebase, leave)
}

// holdLanding takes the lock of landing rec's worktree, so two merges or
// ships of it never run at once (the loser would trip over the files the
// winner writes), and returns its record as it is now. A worktree another
// owt lands right now, or one that is gone since, is an error saying so.
func holdLanding(w *workspace.Workspace, rec *state.Record) (release func(), cur *state.Record, err error) {
	held, err := state.Hold("land\x00" + state.Key{Repo: w.Repo.Root, Name: rec.Name}.String())
	if err != nil {
		return nil, nil, fmt.Errorf("%s is being merged or shipped by another owt process right now; nothing was changed", rec.Name)
	}
	cur, err = w.Get(rec.Name)
	if errors.Is(err, state.ErrUnknownName) {
		held.Release()
		return nil, nil, fmt.Errorf("%s was removed meanwhile (another owt merged or shipped it, or deleted it); nothing was changed", rec.Name)
	}
	if err != nil {
		held.Release()
		return nil, nil, err
	}
	if cur.Swarm != nil {
		held.Release()
		return nil, nil, fmt.Errorf("%s is a worker of the swarm in %s, not a worktree: land %s ('owt merge %s'), which ends its swarm; nothing was changed", cur.Name, cur.Swarm.Host, cur.Swarm.Host, cur.Swarm.Host)
	}
	return held.Release, cur, nil
}

// RefuseBusy is the error of a ship or merge (verbing says which) while
// rec's agent works or waits for the user, judged on its record and its
// screen as they are now: landing would commit its half-done turn and the
// teardown would end it. force, or an agent with nothing under way, gets
// nil.
func RefuseBusy(w *workspace.Workspace, rec *state.Record, verbing string, force bool) error {
	return RefuseBusyFor(w, rec, verbing+" now would land a half-done turn and end it", force)
}

// RefuseBusyFor is RefuseBusy for another verb: why says what going ahead
// would do to the turn under way.
func RefuseBusyFor(w *workspace.Workspace, rec *state.Record, why string, force bool) error {
	if force {
		return nil
	}
	cur, err := w.Get(rec.Name)
	if err != nil {
		return err
	}
	busy := busyNow(w, cur)
	if busy == "" {
		if busy, who := busyWorker(w, cur); busy != "" {
			// Its swarm's workers run in its worktree and end with it.
			return fmt.Errorf("%s's swarm worker %s %s: %s; nothing was changed; let its turn end, stop the swarm ('owt swarm stop %s'), or pass --force",
				cur.Name, who, busy, why, cur.Name)
		}
		return nil
	}
	return fmt.Errorf("%s %s: %s; nothing was changed; let its turn end (see 'owt status %s'), or pass --force",
		cur.Name, busy, why, cur.Name)
}

// busyNow is why rec's agent is busy by its record or, as the record lags
// the screen (by the monitor's look; for tools without hooks the screen is
// all there is), by a spinner or a prompt on its screen; "" when neither.
func busyNow(w *workspace.Workspace, rec *state.Record) string {
	if busy := land.AgentBusy(rec); busy != "" {
		return busy
	}
	return w.BusyOnScreen(rec)
}

// finishLanding tears a landed worktree down unless o.Keep. The error,
// when the teardown fails, says the work landed all the same. Unless
// o.Force, an agent that started a turn since the landing keeps its
// worktree: the teardown would end that turn and lose what it does.
func finishLanding(w *workspace.Workspace, out Landed, verb string, o LandOptions) (Landed, error) {
	Note(Event{Repo: w.Repo.Root, Name: out.Name, Event: verb, Detail: "into " + out.Target})
	if o.Keep {
		return out, nil
	}
	if !o.Force {
		if rec, err := w.Get(out.Name); err == nil {
			if busy := busyNow(w, rec); busy != "" {
				out.Kept = fmt.Sprintf("its agent %s again", busy)
				return out, fmt.Errorf("landed on %s, but kept %s: its agent %s again ('owt delete %s' removes it once its turn ends)", out.Target, out.Name, busy, out.Name)
			}
		}
	}
	// A teardown that kills the session owt runs in must still finish: a
	// half-done one leaves a worktree without its session, or a branch
	// without its record.
	defer holdHangup()()
	if o.Leaving != nil {
		o.Leaving()
	}
	rec, _ := w.Get(out.Name)
	if err := lifecycle.Of(w).Teardown(out.Name, lifecycle.Landing{BranchTip: out.BranchTip, From: out.From, Into: out.Target, Commit: out.Commit}); err != nil {
		out.Kept = err.Error()
		return out, fmt.Errorf("landed on %s, but %w", out.Target, err)
	}
	out.Removed = true
	if rec != nil && rec.InPlace {
		out.Stays = lifecycle.InPlaceStays(rec)
	}
	return out, nil
}

// Delete removes rec's session, worktree and branch (owt delete); without
// o.Force it refuses to lose work.
func Delete(w *workspace.Workspace, name string, o lifecycle.DeleteOptions) error {
	defer holdHangup()()
	if err := lifecycle.Of(w).Delete(name, o); err != nil {
		return err
	}
	Note(Event{Repo: w.Repo.Root, Name: name, Event: "deleted"})
	return nil
}

// TaskVerb is owt run retry|skip|cancel NAME TASK: the task changes under
// the run's lock and the change is logged; the engine reads it next tick.
func TaskVerb(store run.Store, runName, verb, id string) ([]run.Event, error) {
	noteLost(store, runName)
	var evs []run.Event
	err := store.Update(runName, func(r *run.Run) ([]run.Event, error) {
		var err error
		evs, err = r.TaskCommand(verb, id, time.Now())
		return evs, err
	})
	return evs, err
}

// SetRunState is owt run pause|stop NAME; changed is false when the run
// was already there.
func SetRunState(store run.Store, name string, to run.RunState) (changed bool, err error) {
	noteLost(store, name)
	err = store.Update(name, func(r *run.Run) ([]run.Event, error) {
		ev, ok, err := r.SetState(to, time.Now())
		if err != nil || !ok {
			return nil, err
		}
		changed = true
		return []run.Event{ev}, nil
	})
	return changed, err
}

// holdHangup keeps a hang-up (the popup's client leaving, the session
// going) from cutting a teardown in half, and hands it on once the work
// is done: the returned function restores the default and re-raises a
// SIGHUP that came meanwhile, so a long-lived caller (the control popup)
// still ends with its terminal. (signal.Ignore cannot be undone by
// signal.Reset; a Notify can.)
func holdHangup() (release func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	return func() {
		signal.Stop(ch)
		signal.Reset(syscall.SIGHUP)
		select {
		case <-ch:
			_ = syscall.Kill(os.Getpid(), syscall.SIGHUP)
		default:
		}
	}
}

// noteLost records the landed work the run's into lost before a command
// acts on the run, so it acts on what is true (a finished run whose into
// was deleted can be resumed, its task retried).
func noteLost(store run.Store, name string) {
	if r, err := store.Load(name); err == nil {
		_, _ = store.NoteLost(r, time.Now())
	}
}

// Commit commits everything in rec's worktree as Ship would, landing
// nothing (owt commit: the host's half of shipping an agent there).
// Unless force, it refuses while the agent works or waits, looking right
// before the commit.
func Commit(w *workspace.Workspace, rec *state.Record, message string, force bool) (land.ShipResult, error) {
	release, rec, err := holdLanding(w, rec)
	if err != nil {
		return land.ShipResult{}, err
	}
	defer release()
	if err := refuseTesterEdits(w, rec, force); err != nil {
		return land.ShipResult{}, err
	}
	mc := MergeContext(w)
	if !force {
		mc.BeforeCommit = func(r *state.Record) error { return RefuseBusy(w, r, "shipping", false) }
	}
	return mc.Commit(rec, message)
}
