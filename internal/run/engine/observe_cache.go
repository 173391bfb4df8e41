package engine

import (
	"time"

	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
)

// gitObservationMaxAge bounds how long the git part of an observation
// (commits, uncommitted files, tree) of an idle or exited agent is reused
// while its record does not change. An idle agent changes nothing in its
// worktree; what changes it (a new turn, owt done, an exit) changes the
// record, which invalidates the cache at once. What it bounds is how late
// a change made in an idle agent's worktree by someone else (the user)
// is seen, and a decision other than waiting is always made again on a
// fresh look: 30 s keeps a run of twenty agents under its CPU budget
// (15 s cost the bench's 10 idle agents ~1.2% of a core).
const gitObservationMaxAge = 30 * time.Second

// cachedObservation is the git part of one task's last observation, with
// the record fields it was made under.
type cachedObservation struct {
	key string
	at  time.Time
	o   run.Observation
	// confirmed is the verdict a fresh look at git last gave: the same
	// verdict on this observation needs no new look.
	confirmed run.Action
}

// confirm notes the verdict a fresh observation of task gave.
func (e *Engine) confirm(task string, a run.Action) {
	if c, ok := e.observed[task]; ok {
		c.confirmed = a
		e.observed[task] = c
	}
}

// observationKey is what, on the record, makes a cached observation stale.
func observationKey(rec *state.Record) string {
	key := rec.Path + "\x00" + string(rec.Status) + "\x00" + rec.StatusSince.String()
	if rec.Done != nil {
		key += "\x00done " + rec.Done.At.String()
	}
	return key
}

// observeCached is observe, reusing the git part of this task's last
// observation while its record is unchanged and the observation young.
// fresh says whether git was asked now: a decision other than waiting
// on a reused observation is made again on a fresh one (judgeAll).
func (e *Engine) observeCached(task string, rec *state.Record, into string, now time.Time) (o run.Observation, fresh bool, err error) {
	idleOrExited := rec.Status == state.Idle || rec.Status == state.Exited
	if c, ok := e.observed[task]; ok && idleOrExited && c.key == observationKey(rec) && now.Sub(c.at) < gitObservationMaxAge {
		// The record part is the same too: the key covers it.
		o = c.o
		o.Now = now
		return o, false, nil
	}
	o, err = e.observe(rec, into, now)
	if err != nil {
		return o, true, err
	}
	if idleOrExited {
		if e.observed == nil {
			e.observed = map[string]cachedObservation{}
		}
		e.observed[task] = cachedObservation{key: observationKey(rec), at: now, o: o}
	} else {
		delete(e.observed, task)
	}
	return o, true, nil
}
