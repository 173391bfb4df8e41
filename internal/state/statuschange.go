package state

// The rule of a status change: what one event (a hook's, the screen's,
// owt's own) does to an agent's record under the state lock. A stale event
// is dropped; a late "exited" keeps the exit code known; what the change
// says beyond the status (what a waiting agent waits for, a failed turn, a
// usage limit, an interrupt, the tool's session id) is kept; the evidence
// goes into the record's ring; and an event that changes nothing writes at
// most once a second. The hook and every other status writer (the
// monitor's screen readings, owt _run, owt send) share it through
// workspace.Ledger.ChangeStatus.

import (
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// eventRefresh bounds how often an event that changes nothing still writes
// the state file to move the record's EventAt forward: a tool firing hooks
// many times a second costs one write a second, not one per hook.
const eventRefresh = time.Second

// StatusChange is a status an event reports, and when it happened.
type StatusChange struct {
	Status   Status
	Source   Source
	ExitCode *int
	At       time.Time
	// waitingFor is what a waiting agent waits for ("" = unknown).
	WaitingFor string
	// turnError is set when the event ended a turn with an error.
	TurnError string
	// interrupted: the event is the user stopping the turn.
	Interrupted bool
	// turnRan: the event ends a turn owt did not see start.
	TurnRan bool
	// AgentSession and Transcript, when set, are the tool's session id
	// and transcript file the event named: kept on the record (in the
	// write the event makes anyway), never a status change.
	AgentSession, Transcript string
	// Hook is the hook event behind the change, kept in the record's ring
	// when the update writes (owt why).
	Hook *HookEvent
	// Screen is the screen reading behind the change, kept when it sets
	// the status (owt why).
	Screen *ScreenEvidence
	// Limit is the usage limit of a change to limited.
	Limit *Limit
}

// ChangeStatus applies the change decide returns for the record called
// name, as it is under the state lock, unless decide declines or the event is stale. The
// caller publishes.
func (s *Store) ChangeStatus(name string, decide func(*Record) (StatusChange, bool)) (*Record, bool, error) {
	var rec Record
	changed, learnedSession := false, false
	// One record's change, on every hook and screen reading: only it is
	// decoded (Store.UpdateRecordUnsynced).
	err := s.UpdateRecordUnsynced(name, func(r *Record) error {
		if r == nil {
			return fmt.Errorf("%w %q", ErrUnknownName, name)
		}
		rec = *r
		c, ok := decide(r)
		if !ok || c.At.Before(r.EventAt) {
			return ErrNoChange
		}
		if c.Status == Exited && c.ExitCode == nil && r.Status == Exited {
			c.ExitCode = r.ExitCode // a late "exited" without a code keeps the one known
		}
		learned := noteSession(r, c)
		learnedSession = learned
		prev, prevSrc := r.Status, r.Source
		changed = r.SetStatus(c.Status, c.Source, c.At)
		changed = applyDetail(r, c) || changed
		changed = clearDoneOnNewTurn(r, prev, c) || changed
		if c.Status == Exited {
			changed = changed || !sameCode(r.ExitCode, c.ExitCode)
			r.ExitCode = c.ExitCode
		} else {
			r.ExitCode = nil
		}
		if !changed && !learned && c.At.Sub(r.EventAt) < eventRefresh {
			return ErrNoChange
		}
		r.EventAt = c.At
		noteEvidence(r, prev, prevSrc, c)
		rec = *r
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	if learnedSession {
		// The tool's session id is what brings the conversation back
		// after a crash, and no hook tells it again then: made durable
		// (once a session, a rewrite with the fsync).
		_ = s.Update(func(*File) error { return nil })
	}
	return &rec, changed, nil
}

// noteSession keeps the session id and transcript an event named; it
// reports whether they were new.
func noteSession(r *Record, c StatusChange) bool {
	learned := false
	if ValidSessionID(c.AgentSession) && c.AgentSession != r.AgentSession {
		r.AgentSession, learned = c.AgentSession, true
	}
	if ValidSessionID(c.AgentSession) && r.NoteSession(c.AgentSession) {
		learned = true
	}
	if c.Transcript != "" && c.Transcript != r.Transcript {
		r.Transcript, learned = c.Transcript, true
	}
	return learned
}

// noteEvidence keeps what the change was decided on, in the write the
// change makes anyway: the hook event in the record's ring, the screen
// reading that set the status. A status that something other than the
// screen changes drops the screen's evidence: it was about another one.
func noteEvidence(r *Record, prev Status, prevSrc Source, c StatusChange) {
	if c.Hook != nil {
		r.AddHook(*c.Hook)
	}
	switch {
	case c.Screen != nil && c.Source == FromScreen && r.Status == c.Status:
		ev := *c.Screen
		ev.Set, ev.At = prev != c.Status, c.At
		if ev.Set {
			ev.Was, ev.WasSource = prev, prevSrc
		}
		r.Screen = &ev
	case prev != r.Status && c.Source != FromScreen:
		r.Screen = nil
	}
}

func sameCode(a, b *int) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// TaskNotTaken is the turn error of an agent that turned idle without
// ever starting on the task it was started with.
const TaskNotTaken = "task not taken"

// applyDetail keeps what a status change says beyond the status: what a
// waiting agent waits for (a new reason is a new wait, so it restarts
// StatusSince and is notified again) and why a turn failed (cleared by the
// next turn). It reports whether anything changed.
func applyDetail(r *Record, c StatusChange) bool {
	changed := false
	want := ""
	if c.Status == Waiting {
		want = c.WaitingFor
		if want == "" {
			want = r.WaitingFor // a hook without detail keeps the screen's
		}
	}
	if r.WaitingFor != want {
		if want != "" && r.WaitingFor != "" {
			r.StatusSince = c.At
		}
		r.WaitingFor, changed = want, true
	}
	switch {
	case !r.TaskPending || c.Status == Exited:
	case c.Status == Working || c.Source == FromHook || c.TurnRan:
		// A turn started (a hook's idle or question is one, even one too
		// quick to be seen working).
		r.TaskPending, changed = false, true
	case c.Status == Idle && c.TurnError == "":
		// Idle before any turn started: the task never reached the tool.
		c.TurnError = TaskNotTaken
	}
	switch {
	case c.TurnError != "":
		// The agent's words, or its screen's: kept as they came, drawn safe.
		changed = changed || !r.TurnError.Equal(untrusted.From(c.TurnError))
		r.TurnError = untrusted.From(c.TurnError)
		r.TaskPending = false
	case c.Status == Working && !r.TurnError.Empty():
		r.TurnError, changed = untrusted.Untrusted{}, true
	}
	changed = applyLimit(r, c) || changed
	switch {
	case c.Interrupted && !r.Interrupted:
		r.Interrupted, changed = true, true
	case c.Status == Working && r.Interrupted:
		r.Interrupted, changed = false, true
	}
	return changed
}

// applyLimit keeps the limit of a limited agent: a new one (other words,
// another reset) replaces it and may be nudged again; any other status
// forgets it.
func applyLimit(r *Record, c StatusChange) bool {
	if c.Status != Limited {
		if r.Limit == nil {
			return false
		}
		r.Limit = nil
		return true
	}
	l := c.Limit
	if l == nil {
		l = &Limit{}
	}
	if r.Limit != nil && r.Limit.Text.Equal(l.Text) && r.Limit.Reset.Equal(l.Reset) {
		return false
	}
	if r.Limit != nil && l.Text.Empty() && l.Reset.IsZero() {
		return false // a hook without words keeps what the screen read
	}
	cp := *l
	r.Limit = &cp
	return true
}

// clearDoneOnNewTurn forgets the agent's owt done once a new turn starts
// after it (working again from idle, exited or starting): the signal
// speaks for the turn it was given in. Working after waiting is the same
// turn going on, so it keeps the signal.
func clearDoneOnNewTurn(r *Record, prev Status, c StatusChange) bool {
	if r.Done == nil || c.Status != Working || !c.At.After(r.Done.At) {
		return false
	}
	switch prev {
	case Idle, Exited, Starting:
		r.Done = nil
		return true
	}
	return false
}
