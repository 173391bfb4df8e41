package react

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/forge"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// Input is one agent the reactor looks at this tick: its record (as the
// monitor last read it) and its repository's config.
type Input struct {
	Rec    *state.Record
	Config config.Config
	// Into is the branch the agent's work lands in when it is a task of a
	// run with an into (engine.Engine.IntoOf): conflicts are predicted
	// against it instead of the worktree's base.
	Into string
	// Tips are the commits of the agent's branch and of its target as
	// the monitor read them from the repository's ref files, which it
	// watches ("" when it does not). While they and the record stand
	// still, an idle agent's conflict prediction is not run again; without
	// them it runs every [pr] poll_interval.
	Tips string
}

// target is the branch the agent's work goes into: the run's into, else
// the worktree's base.
func (in Input) target() string {
	if in.Into != "" {
		return in.Into
	}
	return in.Rec.Base
}

// Reactor runs the reaction sources of one tmux server's agents. The
// monitor calls Tick once a tick; checks, merge-tree and gh calls run in
// the background, one of each kind per agent at a time.
type Reactor struct {
	Box   outbox.Box
	Forge forge.Client
	// Log writes one entry of owt.log about the repository and agent
	// named in f.
	Log func(f owtlog.Fields, format string, args ...any)
	// Notify tells the user about an agent (tmux message, bell, desktop):
	// called once when a reaction escalates, never for each attempt.
	Notify func(rec *state.Record, text string)

	mu     sync.Mutex
	busy   map[work]bool
	idleAt map[agentKey]time.Time // the idle turn last looked at
	lookAt map[agentKey]time.Time // when an idle agent's conflict prediction last ran
	// lookMark is what that run looked at (lookMarkOf).
	lookMark map[agentKey]lookMark
	next     map[agentKey]time.Time     // when its pull request is polled next
	polled   map[agentKey]time.Time     // when it was last polled
	logOwed  map[agentKey]logWait       // failures held for a log gh could not give yet
	backoff  map[agentKey]time.Duration // the wait after a failed poll
	ghOff    bool                       // gh is not logged in: polls wait for ghRetry
	ghWait   time.Duration              // the wait before gh is tried again (backoff)
	ghRetry  time.Time                  // when one poll tries gh again
	boxMod   time.Time                  // the outbox dir's mtime at the last tick (Tick's goroutine only)
}

type agentKey struct{ repo, name string }

func keyOf(r *state.Record) agentKey { return agentKey{r.Repo, r.Name} }

// Kind is the outbox kind of a reaction's messages.
func Kind(reaction string) string { return "reaction " + reaction }

// maxBackoff bounds the wait between polls of a pull request whose gh
// calls fail.
const maxBackoff = 10 * time.Minute

// Tick starts what is due for each agent: settling sent messages, checks
// and conflict prediction on a new idle turn, a poll of an open PR.
func (x *Reactor) Tick(now time.Time, in []Input) {
	boxMoved := x.boxMoved(now)
	for _, it := range in {
		rec := it.Rec
		if rec.Creating {
			continue
		}
		// A message to an agent that exited is settled as undeliverable;
		// the pull request of a worktree without a live agent is still
		// followed (no turns to look at: outbox.Ready is false), and what
		// fails on it needs the user.
		if boxMoved {
			x.settle(rec)
		}
		if outbox.Ready(rec) && x.newIdleTurn(rec) {
			// The turn counts as looked at only once its work started: a
			// look still busy with the last turn leaves it for a later tick.
			it := it
			if x.spawn(work{"idle", rec.Key()}, func() { x.onIdle(it) }) {
				x.lookedAtTurn(rec)
				x.looked(rec, now)
				x.lookedAtRefs(it)
			}
		} else if outbox.Ready(rec) && x.lookDue(it, now, it.Config.PR.PollInterval.Duration) {
			// The base moves while an agent sits idle: the prediction
			// runs again now and then (two rev-parses when nothing moved).
			it := it
			if x.spawn(work{"idle", rec.Key()}, func() {
				if err := x.conflict(it); err != nil {
					x.logf(rec, "reaction %s %s: %v", config.Conflict, rec.Name, err)
				}
			}) {
				x.looked(rec, now)
				x.lookedAtRefs(it)
			}
		}
		if x.pollDue(rec, it.Config, now) {
			cfg := it.Config
			x.spawn(work{"pr", rec.Key()}, func() { x.poll(rec, cfg) })
		} else if why := x.staleBecause(rec); why != "" {
			x.spawn(work{"pr", rec.Key()}, func() {
				if err := x.markStale(rec, why); err != nil {
					x.logf(rec, "pr %s: %v", rec.Name, err)
				}
			})
		}
	}
}

// boxMoved reports whether the outbox may have settled a message since
// the last tick: its dir changed (every write renames a file into it), or
// changed so lately that a second write could share its mtime. Otherwise
// settling the reactions' messages would read an outbox file a tick.
func (x *Reactor) boxMoved(now time.Time) bool {
	fi, err := os.Stat(x.Box.Dir)
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	mod := fi.ModTime()
	moved := !mod.Equal(x.boxMod) || now.Sub(mod) < 2*time.Second
	x.boxMod = mod
	return moved
}

// looked notes that rec's conflict prediction runs now.
func (x *Reactor) looked(rec *state.Record, now time.Time) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.lookAt == nil {
		x.lookAt = map[agentKey]time.Time{}
	}
	x.lookAt[keyOf(rec)] = now
}

// lookDue reports whether an idle agent's prediction is due again, for a
// base that moved meanwhile. Where the monitor watches the repository's
// refs (it.Tips), that is when either tip moved, or the agent's record
// changed (its status, the conflict's memory: a message settled), since
// its last look; an agent with a conflict open is looked at every [pr]
// poll_interval as well, as are all where refs are not watched.
func (x *Reactor) lookDue(it Input, now time.Time, every time.Duration) bool {
	rec := it.Rec
	x.mu.Lock()
	defer x.mu.Unlock()
	last, ok := x.lookAt[keyOf(rec)]
	periodic := !ok || now.Sub(last) >= every
	if it.Tips == "" {
		return periodic
	}
	if m := memory(rec, config.Conflict); m.Signature != "" || m.Attempts > 0 || m.Passes > 0 || m.Pending != "" {
		return periodic
	}
	return x.lookMark[keyOf(rec)] != lookMarkOf(it)
}

// lookMark is what an idle agent's prediction depends on that the
// monitor knows without git: the tips, the target, the status. A value
// compared every tick for every agent: no string is made of it.
type lookMark struct {
	tips, target string
	status       state.Status
	since        int64
	resolving    bool
}

func lookMarkOf(it Input) lookMark {
	return lookMark{it.Tips, it.target(), it.Rec.Status, it.Rec.StatusSince.UnixNano(), it.Rec.Resolve != nil}
}

// lookedAtRefs notes what rec's prediction ran at (lookMarkOf).
func (x *Reactor) lookedAtRefs(it Input) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.lookMark == nil {
		x.lookMark = map[agentKey]lookMark{}
	}
	x.lookMark[keyOf(it.Rec)] = lookMarkOf(it)
}

// newIdleTurn reports whether rec's idle turn is one not looked at yet.
func (x *Reactor) newIdleTurn(rec *state.Record) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	return !x.idleAt[keyOf(rec)].Equal(rec.StatusSince)
}

// lookedAtTurn notes that rec's idle turn is being looked at.
func (x *Reactor) lookedAtTurn(rec *state.Record) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.idleAt == nil {
		x.idleAt = map[agentKey]time.Time{}
	}
	x.idleAt[keyOf(rec)] = rec.StatusSince
}

// work is one kind of background work ("idle", "pr") for one agent.
type work struct {
	kind  string
	agent state.Key
}

// spawn runs fn in the background unless work under key runs already,
// and says whether it started it.
func (x *Reactor) spawn(key work, fn func()) bool {
	x.mu.Lock()
	if x.busy == nil {
		x.busy = map[work]bool{}
	}
	if x.busy[key] {
		x.mu.Unlock()
		return false
	}
	x.busy[key] = true
	x.mu.Unlock()
	go func() {
		defer func() {
			x.mu.Lock()
			delete(x.busy, key)
			x.mu.Unlock()
		}()
		fn()
	}()
	return true
}

// onIdle runs the checks and the conflict prediction on the agent's new
// turn.
func (x *Reactor) onIdle(it Input) {
	rec := it.Rec
	if err := x.checks(rec, it.Config); err != nil {
		x.logf(rec, "reaction %s %s: %v", config.ChecksFailed, rec.Name, err)
	}
	if err := x.conflict(it); err != nil {
		x.logf(rec, "reaction %s %s: %v", config.Conflict, rec.Name, err)
	}
}

// failure is one observed failure of a reaction.
type failure struct {
	reaction string
	seen     string // the input judged
	sig      string // the cause
	what     string // one line for the user
	data     MessageData
	// afterTurn: a new cause waits until the agent has had a turn after
	// the last message (AwaitsTurn), rather than costing an attempt it
	// never had the chance to use.
	afterTurn bool
}

// fail records f on the agent's record and does what the reaction says:
// the message is queued in the outbox under the same lock that counts the
// attempt, so an attempt is counted only with its message queued.
func (x *Reactor) fail(rec *state.Record, f failure, cfg config.Reaction) error {
	// what names files, checks and branches: others' words, shown on the
	// user's terminal, in notices and in the log.
	f.what = untrusted.CleanLine(f.what)
	now := time.Now()
	var out Outcome
	var after state.Record
	err := x.update(rec, f.reaction, func(cur *state.Record, st *state.Reaction) error {
		deaf := unheard(cur)
		if f.afterTurn && deaf == "" && f.sig != st.Signature && AwaitsTurn(st, cur, now) {
			return state.ErrNoChange // judged again at a later look
		}
		st.Seen = f.seen
		switch {
		case deaf != "":
			out = FailUnheard(st, f.sig, f.what, deaf, cfg, now)
		case f.afterTurn && f.sig == st.Signature && Unheeded(st, cur):
			out = FailAgain(st, f.what, cfg, now)
		default:
			out = Fail(st, f.sig, f.what, cfg, now)
		}
		if out == Send {
			f.data.Reaction, f.data.Name = f.reaction, cur.Name
			// The key is this cause for this agent and this attempt: the
			// same cause after it passed (attempts start again), or for a
			// new agent of the same name, is a new message, not a
			// duplicate of one the outbox delivered long ago.
			key := fmt.Sprintf("%s@%d#%d", f.sig, cur.CreatedAt.UnixNano(), st.Attempts)
			key, err := x.enqueue(cur, f, cfg, key, now)
			if err != nil {
				return err
			}
			st.Pending = key
		}
		after = *cur
		return nil
	})
	if err != nil {
		return err
	}
	switch out {
	case Send:
		x.logf(rec, "reaction %s %s: queued a message (attempt %d): %s", f.reaction, rec.Name, after.Reactions[f.reaction].Attempts, f.what)
	case Escalate:
		x.escalated(&after, f.reaction)
	case Tell:
		x.tell(&after, fmt.Sprintf("owt: %s: %s: %s", after.Name, f.reaction, f.what))
	}
	return nil
}

// enqueue queues f's message for the agent under key and returns the key
// it is queued under. A message still queued under key is one an earlier
// try queued whose record could not be written: it is counted now, not
// queued twice. One settled long ago under key (the same cause and
// attempt number after the attempts started again) does not stand for
// this one: it goes under a fresh key.
func (x *Reactor) enqueue(rec *state.Record, f failure, cfg config.Reaction, key string, now time.Time) (string, error) {
	a := outbox.Of(rec)
	msg := outbox.Message{Kind: Kind(f.reaction), Key: key, Text: render(cfg, f.data), From: "reaction " + f.reaction}
	got, added, err := x.Box.Enqueue(a, msg, now)
	if err != nil || added || got.State == outbox.Queued {
		return key, err
	}
	msg.Key = fmt.Sprintf("%s~%d", key, now.UnixNano())
	_, _, err = x.Box.Enqueue(a, msg, now)
	return msg.Key, err
}

// unheard says why no agent can take a message in rec's worktree ("" when
// one can): its pull request is still followed, for the user.
func unheard(rec *state.Record) string {
	switch {
	case rec.NoAgent:
		return "no agent works in it"
	case rec.Status == state.Exited:
		return "its agent exited"
	}
	return ""
}

// pass records a passing observation of the reaction on input seen. Its
// message still waiting in the outbox is withdrawn: by the time it would
// be typed it would be false.
func (x *Reactor) pass(rec *state.Record, reaction, seen string) error {
	var cleared, withdrawn bool
	err := x.update(rec, reaction, func(cur *state.Record, st *state.Reaction) error {
		if st.Seen == seen && st.Passes == 0 && st.Attempts == 0 && st.NeedsYou == "" {
			return state.ErrNoChange
		}
		st.Seen = seen
		if st.Pending != "" {
			a := outbox.Of(cur)
			ok, err := x.Box.Withdraw(a, Kind(reaction), st.Pending, "its cause is gone: "+reaction+" passes now")
			if err != nil {
				return fmt.Errorf("withdraw its message: %w", err)
			}
			if ok {
				Withdrawn(st)
				withdrawn = true
			}
		}
		cleared = Pass(st, time.Now())
		return nil
	})
	if withdrawn && err == nil {
		x.logf(rec, "reaction %s %s: passes now; its message, not delivered yet, was withdrawn", reaction, rec.Name)
	}
	if cleared {
		x.logf(rec, "reaction %s %s: passes again; it no longer needs you", reaction, rec.Name)
	}
	return err
}

// settle follows the messages the reactions sent: delivered clears them,
// undeliverable makes the reaction need the user.
func (x *Reactor) settle(rec *state.Record) {
	for name, st := range rec.Reactions {
		if st == nil || st.Pending == "" {
			continue
		}
		m, ok, err := x.Box.Lookup(outbox.Of(rec), Kind(name), st.Pending)
		if err != nil || !ok || m.State == outbox.Queued {
			continue
		}
		key := st.Pending
		var out Outcome
		var after state.Record
		err = x.update(rec, name, func(cur *state.Record, st *state.Reaction) error {
			if st.Pending != key {
				return state.ErrNoChange
			}
			switch {
			case m.State == outbox.Delivered:
				st.Pending = ""
				if !m.SentAt.IsZero() {
					st.At = m.SentAt // its turn on the message comes after this (Unheeded)
				}
			case m.State == outbox.Withdrawn:
				st.Pending = "" // its cause passed (pass)
			default:
				out = Undelivered(st, m.Why)
			}
			after = *cur
			return nil
		})
		if err != nil {
			x.logf(rec, "reaction %s %s: %v", name, rec.Name, err)
			continue
		}
		if out == Escalate {
			x.escalated(&after, name)
		}
	}
}

func (x *Reactor) escalated(rec *state.Record, reaction string) {
	why := rec.Reactions[reaction].NeedsYou
	x.logf(rec, "reaction %s %s: needs you: %s", reaction, rec.Name, why)
	x.tell(rec, fmt.Sprintf("owt: %s needs you (%s: %s)", rec.Name, reaction, why))
}

func (x *Reactor) tell(rec *state.Record, text string) {
	if x.Notify != nil {
		x.Notify(rec, text)
	}
}

// update changes the reaction's memory on the agent's record under the
// state lock; fn sees the record as stored now.
func (x *Reactor) update(rec *state.Record, reaction string, fn func(*state.Record, *state.Reaction) error) error {
	return state.ForRepo(rec.Repo).Update(func(f *state.File) error {
		cur := f.Records[rec.Name]
		if cur == nil || cur.Branch != rec.Branch {
			return state.ErrNoChange // gone, or another worktree by that name now
		}
		if cur.Reactions == nil {
			cur.Reactions = map[string]*state.Reaction{}
		}
		st := cur.Reactions[reaction]
		if st == nil {
			st = &state.Reaction{}
			cur.Reactions[reaction] = st
		}
		return fn(cur, st)
	})
}

// memory is the reaction's memory as rec holds it (zero when none).
func memory(rec *state.Record, reaction string) state.Reaction {
	if st := rec.Reactions[reaction]; st != nil {
		return *st
	}
	return state.Reaction{}
}

// logf logs about the agent of rec (nil: about no agent).
func (x *Reactor) logf(rec *state.Record, format string, args ...any) {
	if x.Log == nil {
		return
	}
	f := owtlog.Fields{Event: "reaction"}
	if rec != nil {
		f.Repo, f.Agent = rec.Repo, rec.Name
	}
	x.Log(f, format, args...)
}
