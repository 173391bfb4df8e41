// Package react turns what goes wrong after an agent's turn (the repo's
// checks fail, CI fails on its pull request, a reviewer requests changes,
// its branch turns conflicting) into a message to that agent, through the
// outbox: once per cause, counted, and escalated to the user when the
// attempts are used up. The monitor hosts it (Reactor.Tick).
package react

import (
	"fmt"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
)

// Outcome is what a reaction does about one observation.
type Outcome int

// Outcomes of Fail.
const (
	Nothing  Outcome = iota // seen already, off, or needing the user already
	Send                    // a message goes to the agent
	Escalate                // the reaction needs the user now: tell them once
	Tell                    // action "notify": tell the user, not the agent
)

// Fail records a failure whose cause has signature sig and says what to
// do. The same signature is acted on once; attempts only grow; once they
// are used up the reaction needs the user and stays so (a new cause
// updates why) until the cause passes twice in a row.
func Fail(st *state.Reaction, sig, what string, cfg config.Reaction, now time.Time) Outcome {
	if !newCause(st, sig, cfg, now) {
		return Nothing
	}
	switch {
	case cfg.Action == "notify":
		return Tell
	case st.NeedsYou != "":
		st.NeedsYou = usedUp(st.Attempts, what)
		return Nothing
	case st.Attempts >= cfg.MaxAttempts:
		st.NeedsYou = usedUp(st.Attempts, what)
		return Escalate
	}
	st.Attempts++
	return Send
}

// FailUnheard is Fail for a worktree no agent can hear (created with
// --no-agent, or its agent exited; deaf says which): a cause that would
// go to the agent makes the reaction need the user at once, told once.
func FailUnheard(st *state.Reaction, sig, what, deaf string, cfg config.Reaction, now time.Time) Outcome {
	if !newCause(st, sig, cfg, now) {
		return Nothing
	}
	if cfg.Action == "notify" {
		return Tell
	}
	told := st.NeedsYou != ""
	st.NeedsYou = deaf + ": " + what
	if told {
		return Nothing
	}
	return Escalate
}

// newCause notes a failure observation and reports whether its cause is
// one to act on: the reaction is on and the signature is not the last
// one acted on.
func newCause(st *state.Reaction, sig string, cfg config.Reaction, now time.Time) bool {
	st.Passes = 0
	if cfg.Action == "off" || sig == st.Signature {
		return false
	}
	st.Signature, st.At = sig, now
	return true
}

// AwaitsTurn reports whether the agent has not had its chance yet to act
// on the reaction's last message: the message is still in the outbox, or
// no turn of the agent has ended since it was queued. A new cause met
// meanwhile waits, so it does not cost an attempt the agent never had;
// once delivered, never longer than turnWait after that (st.At: queued,
// then delivered), in case a turn too quick to be seen went by.
func AwaitsTurn(st *state.Reaction, rec *state.Record, now time.Time) bool {
	if st.Attempts == 0 || st.NeedsYou != "" {
		return false
	}
	if st.Pending != "" {
		return true // the outbox settles it: delivered, or the user's
	}
	return (rec.Status != state.Idle || !rec.StatusSince.After(st.At)) && now.Sub(st.At) < turnWait
}

// Unheeded reports whether the agent had a turn after the reaction's
// last message reached it and the cause it was told about is still there:
// the caller met the same signature again. That counts as the next
// attempt (FailAgain), so a cause the agent lets stand ends with the user.
func Unheeded(st *state.Reaction, rec *state.Record) bool {
	return st.Signature != "" && st.Attempts > 0 && st.NeedsYou == "" && st.Pending == "" &&
		rec.Status == state.Idle && rec.StatusSince.After(st.At)
}

// FailAgain records the same cause met again after the agent had its turn
// on the last message (Unheeded): the next attempt, or, with the attempts
// used up, the user is needed, told once.
func FailAgain(st *state.Reaction, what string, cfg config.Reaction, now time.Time) Outcome {
	st.Passes = 0
	switch {
	case cfg.Action == "off" || cfg.Action == "notify" || st.NeedsYou != "":
		return Nothing // notify told the user once per cause
	case st.Attempts >= cfg.MaxAttempts:
		st.NeedsYou = usedUp(st.Attempts, what)
		return Escalate
	}
	st.Attempts++
	st.At = now
	return Send
}

// turnWait bounds how long a new cause waits for the agent's turn.
const turnWait = 10 * time.Minute

func usedUp(attempts int, what string) string {
	return fmt.Sprintf("%d attempt(s) used, still failing: %s", attempts, what)
}

// Pass records a passing observation; the second in a row clears the
// attempts and the need for the user. It reports whether it cleared a
// need for the user.
func Pass(st *state.Reaction, now time.Time) bool {
	if st.Attempts == 0 && st.NeedsYou == "" && st.Signature == "" {
		return false
	}
	st.Passes++
	if st.Passes < 2 {
		return false
	}
	was := st.NeedsYou != ""
	*st = state.Reaction{Seen: st.Seen, At: now}
	return was
}

// Withdrawn records that the reaction's last message was taken back from
// the outbox before the agent got it (its cause passed): it was no
// attempt, and the same cause met again is news to the agent.
func Withdrawn(st *state.Reaction) {
	st.Pending, st.Signature = "", ""
	if st.Attempts > 0 {
		st.Attempts--
	}
}

// Undelivered records that the message for this reaction could not be
// delivered: the user is needed, whatever the attempts.
func Undelivered(st *state.Reaction, why string) Outcome {
	st.Pending = ""
	if st.NeedsYou != "" {
		return Nothing
	}
	st.NeedsYou = "could not deliver the message: " + why
	return Escalate
}
