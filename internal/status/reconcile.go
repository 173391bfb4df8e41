package status

import (
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"

	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Debounce is how long a screen reading must hold, and how old the
// record's last event must be, before the screen replaces a status: a
// spinner still drawn while the Stop hook runs, or a menu redrawn once,
// must not flip the status back and forth.
const Debounce = time.Second

// Observation is what the monitor saw on an agent's pane.
type Observation struct {
	Class agent.Class
	// Reason is what a waiting screen waits for (agent.WaitReason).
	Reason string
	// ClassSince is when this class was first seen, without a break.
	ClassSince time.Time
	// Changed is when the pane's text last changed.
	Changed time.Time
	// At is when the pane was captured.
	At time.Time
	// Interrupted and TurnError say how the turn ended that left an idle
	// screen: stopped by the user (a mark like "Interrupted · What should
	// Claude do instead?"), or failed with that error.
	Interrupted bool
	TurnError   string
	// Limit is a usage limit the screen shows: a quota dialog, a retry
	// on a provider's rate limit, a turn a limit ended (state.Limit).
	Limit *state.Limit
	// Rule, RuleText and Lines are the classifier's evidence for Class
	// (agent.Reading), kept on the record for owt why.
	Rule, RuleText string
	Lines          []string
	// Mark is the row that says the turn was interrupted, when it was.
	Mark string
	// HookEndsTurns: the tool's hooks report the end of every turn it
	// runs (Claude's Stop or StopFailure, Gemini's AfterAgent…), so a
	// turn a hook started that the screen ends got no such hook: the user
	// stopped it, whether or not the tool marks that on screen.
	HookEndsTurns bool
	// Blank: the pane shows nothing (Class is ClassUnknown).
	Blank bool
}

// evidence is what the observation keeps on the record.
func (o Observation) evidence() *state.ScreenEvidence {
	if o.Limit != nil {
		// The tool's words for its usage limit are what decided.
		return &state.ScreenEvidence{Status: state.Limited, Rule: "limit", RuleText: "a usage limit in the tool's words",
			Lines: []untrusted.Untrusted{untrusted.From(cut(o.Limit.Text.Line()))}, At: o.At}
	}
	if o.Rule == "" {
		return nil
	}
	lines := make([]untrusted.Untrusted, len(o.Lines))
	for i, l := range o.Lines {
		lines[i] = untrusted.From(cut(l)) // the agent's screen: its words
	}
	return &state.ScreenEvidence{Status: state.Status(o.Class), Rule: o.Rule, RuleText: o.RuleText, Lines: lines,
		Interrupted: o.Interrupted, Mark: untrusted.From(cut(o.Mark)), At: o.At}
}

// rowLimit bounds a screen row kept on the record: a wide pane's row can
// be long, and every hook rewrites the record.
const rowLimit = 300

func cut(row string) string {
	if len(row) <= rowLimit {
		return row
	}
	return strings.ToValidUTF8(row[:rowLimit], "") + "…"
}

// Reconcile is the status the screen implies for rec, when it should
// replace the recorded one (DESIGN.md, "Status model"):
//
//   - a question on screen is waiting, whatever the last hook said, and a
//     new question (trust, then login) is a new wait;
//   - a busy indicator on screen is working when the record says idle or
//     waiting (Codex reports no turn start; a long tool call after an
//     approval reports nothing until it ends);
//   - the input prompt of a tool that has not taken its task yet is
//     starting (after a dialog too);
//   - the input prompt alone is idle: at once when the screen set the
//     status or says the turn was interrupted or failed (a mark drawn
//     since the status began), but otherwise a
//     working or waiting status from a hook or from owt yields only once
//     the pane has been still for stillAfter (Esc fires no hook; a
//     question answered with "no" fires none either).
//
// Nothing happens before the reading has held for Debounce and the record's
// last event is Debounce old. Exited records, and starting ones unless a
// first-run dialog waits for the user, are left to the runner; a pane owt
// cannot read (ClassUnknown) changes nothing, but for a blank one where
// the screen's own first-run question was: that is starting again.
func Reconcile(rec *state.Record, obs Observation, stillAfter time.Duration) (state.Status, bool) {
	if rec.NoAgent || rec.Status == state.Exited {
		return "", false
	}
	if obs.Class == agent.ClassUnknown {
		// A first-run question the screen showed, gone to a blank pane
		// (Claude Code draws nothing for seconds after its API key
		// question is answered): answered, and the task not taken yet.
		if obs.Blank && rec.Status == state.Waiting && rec.Source == state.FromScreen && rec.TaskPending &&
			obs.At.Sub(obs.ClassSince) >= Debounce && obs.At.Sub(rec.EventAt) >= Debounce {
			return state.Starting, true
		}
		return "", false
	}
	if rec.Status == state.Starting && obs.Class != agent.ClassWaiting && obs.Limit == nil {
		return "", false // the runner says when the tool is ready
	}
	if obs.At.Sub(obs.ClassSince) < Debounce || obs.At.Sub(rec.EventAt) < Debounce {
		return "", false
	}
	if obs.Limit != nil {
		// A usage limit on screen is limited, whatever else the screen
		// shows with it (its dialog, a retry spinner, the input prompt
		// under the turn it ended); another limit is a new one.
		// The same words read again keep the recorded reset: a clock time
		// read after it passed would name tomorrow's.
		if rec.Status != state.Limited || rec.Limit == nil || !rec.Limit.Text.Equal(obs.Limit.Text) {
			return state.Limited, true
		}
		return "", false
	}
	switch obs.Class {
	case agent.ClassWaiting:
		if rec.Status != state.Waiting || newWaitReason(rec, obs.Reason) {
			return state.Waiting, true
		}
	case agent.ClassWorking:
		// A limited agent at work again: the limit reset, or the user
		// switched its model.
		if rec.Status == state.Idle || rec.Status == state.Waiting || rec.Status == state.Limited {
			return state.Working, true
		}
	case agent.ClassIdle:
		if rec.TaskPending && obs.TurnError == "" {
			// The tool has not taken its task yet (Codex shows an empty
			// prompt for seconds, after a dialog too): still starting, no
			// turn finished. The runner gives up on it after a while.
			if rec.Status == state.Waiting {
				return state.Starting, true
			}
			return "", false
		}
		if StoppedUnderHook(rec, obs) {
			return state.Idle, true // with Interrupted (ApplyScreen)
		}
		if rec.Status != state.Working && rec.Status != state.Waiting {
			return "", false
		}
		// A mark of a stopped or failed turn ends this turn at once only
		// when the screen turned idle after the status began: an idle
		// reading older than it never saw this turn run, and the mark it
		// shows is the last turn's (Esc, then owt send to OpenCode, which
		// draws its busy indicator seconds later).
		marked := (obs.Interrupted || obs.TurnError != "") && !obs.ClassSince.Before(rec.StatusSince)
		if rec.Source == state.FromScreen || marked || obs.At.Sub(obs.Changed) >= stillAfter {
			return state.Idle, true
		}
	}
	return "", false
}

// newWaitReason reports whether the screen says a waiting agent now waits
// for something else (a sign-in choice, then the API key box). The
// screen's catch-all "permission" never replaces what a hook said.
func newWaitReason(rec *state.Record, reason string) bool {
	return reason != "" && reason != rec.WaitingFor && (rec.WaitingFor == "" || reason != agent.WaitPermission)
}

// ApplyScreen applies what the screen says to the record called name, the
// decision taken again on the record as it is under the state lock (a hook
// may have changed it since the caller read it). It reports whether the
// status changed.
func ApplyScreen(w *workspace.Ledger, name string, obs Observation, stillAfter time.Duration) (bool, error) {
	_, changed, err := w.ChangeStatus(name, func(r *state.Record) (state.StatusChange, bool) {
		st, ok := Reconcile(r, obs, stillAfter)
		c := state.StatusChange{Status: st, Source: state.FromScreen, At: obs.At, WaitingFor: obs.Reason, Screen: obs.evidence()}
		switch st {
		case state.Idle:
			c.Interrupted, c.TurnError = obs.Interrupted || endedUnhooked(r, obs), obs.TurnError
			if c.Interrupted && c.Screen != nil {
				c.Screen.Interrupted = true
			}
		case state.Limited:
			c.Limit = &state.Limit{Text: obs.Limit.Text, Reset: obs.Limit.Reset}
		}
		return c, ok
	})
	if changed {
		PublishCurrent(w, name)
	}
	return changed, err
}

// StoppedUnderHook reports whether rec, idle by its tool's end-of-turn
// hook, shows on screen (obs) a mark of a stopped turn drawn in that
// turn: Gemini CLI fires AfterAgent after an Esc too. The idle reading
// must have begun after the turn's last working hook, so that a mark of
// an earlier turn, under a quick turn owt never saw run, says nothing.
func StoppedUnderHook(rec *state.Record, obs Observation) bool {
	if rec.Status != state.Idle || rec.Source != state.FromHook || rec.Interrupted || !rec.TurnError.Empty() ||
		obs.Class != agent.ClassIdle || !obs.Interrupted {
		return false
	}
	for i := len(rec.Hooks) - 1; i >= 0; i-- {
		if h := rec.Hooks[i]; h.Status == state.Working {
			return obs.ClassSince.After(h.At)
		}
	}
	return false
}

// endedUnhooked reports whether the screen ends, with no error on it, a
// turn a hook of rec's tool started (its status working or waiting from a
// hook) when that tool's hooks report every turn's end: the end hook
// never came, so Esc stopped the turn (it fires no hook, and Claude Code
// marks nothing when it is pressed before its first answer).
func endedUnhooked(rec *state.Record, obs Observation) bool {
	return obs.HookEndsTurns && obs.TurnError == "" && rec.Source == state.FromHook &&
		(rec.Status == state.Working || rec.Status == state.Waiting)
}

// Confirms reports whether the screen, read as obs, confirms rec's status
// with evidence rec does not hold yet: the reading says the recorded
// status, has held for Debounce, and is newer than the record's last
// event. Only a wait is confirmed (what the user asks owt why about: is
// it really waiting for me?), and a working status owt set (the runner,
// owt send) with no hook behind it — OpenCode has no hooks, Codex run
// with -c notify tells only a turn's end — which would otherwise have no
// evidence at all: one write a turn, for those tools only. Confirming
// every turn's working and idle cost a busy agent two state writes a turn
// (the monitor's CPU in make bench did not measurably change with it); a
// screen that sets a status keeps its reading all the same.
func Confirms(rec *state.Record, obs Observation) bool {
	if rec.NoAgent || obs.Rule == "" || string(obs.Class) != string(rec.Status) {
		return false
	}
	if rec.Status != state.Waiting && (rec.Status != state.Working || rec.Source != state.FromOwt) {
		return false
	}
	if obs.At.Sub(obs.ClassSince) < Debounce || obs.At.Sub(rec.EventAt) < Debounce {
		return false
	}
	return !workspace.ScreenNoted(rec, rec.Status, obs.Rule)
}

// ConfirmScreen keeps on the record called name the screen's evidence
// for the status it already has (see Confirms); it changes no status.
func ConfirmScreen(w *workspace.Ledger, name string, obs Observation) (bool, error) {
	ev := obs.evidence()
	if ev == nil {
		return false, nil
	}
	return w.NoteScreen(name, *ev)
}
