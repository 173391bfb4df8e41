package status

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Why is the evidence behind an agent's status, as owt why shows it (and
// prints with --json; the field names are stable).
type Why struct {
	Name   string    `json:"name"`
	Tool   string    `json:"tool"`
	Status string    `json:"status"`
	Since  time.Time `json:"since"`
	// Source is who set the status: hook, screen or owt.
	Source      string `json:"source"`
	WaitingFor  string `json:"waiting_for,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
	ExitCode    *int   `json:"exit_code,omitempty"`
	// Summary is the first line of owt why, safe to draw.
	Summary string `json:"summary"`
	// Hooks are the last hook events that reached the record, oldest first.
	Hooks []state.HookEvent `json:"hook_events"`
	// Screen is the screen reading that set or confirmed the status, if any.
	Screen *state.ScreenEvidence `json:"screen"`
	// Task is the run task the agent works on, if any.
	Task *WhyTask `json:"task"`
	// Reactions are the reactions that remember something about the agent.
	Reactions []WhyReaction `json:"reactions"`
	// Outbox are the messages owt owes the agent and has not delivered.
	Outbox []WhyMessage `json:"outbox"`
	// SetupFailed are the steps of the worktree's dependency install and
	// setup commands that failed, with why (the agent started anyway).
	SetupFailed []string `json:"setup_failed,omitempty"`
}

// WhyTask is the run task an agent works on and what the run's judge saw.
type WhyTask struct {
	Run      string        `json:"run"`
	ID       string        `json:"id"`
	State    run.TaskState `json:"state"`
	Since    time.Time     `json:"since"`
	Attempt  int           `json:"attempt"`
	Why      string        `json:"why,omitempty"`
	Owed     string        `json:"owed,omitempty"`
	Failure  *run.Failure  `json:"failure,omitempty"`
	Evidence *run.Evidence `json:"evidence"`
}

// WhyReaction is one reaction's memory of the agent.
type WhyReaction struct {
	Name     string    `json:"name"`
	Attempts int       `json:"attempts"`
	Pending  string    `json:"pending,omitempty"`
	NeedsYou string    `json:"needs_you,omitempty"`
	At       time.Time `json:"at,omitzero"`
}

// WhyMessage is one message still owed to the agent.
type WhyMessage struct {
	Kind     string              `json:"kind"`
	From     string              `json:"from,omitempty"`
	QueuedAt time.Time           `json:"queued_at"`
	Held     string              `json:"held,omitempty"`
	Text     untrusted.Untrusted `json:"text"`
}

// Explain gathers why the agent called name has its status: the record's
// evidence, its run task and what owt owes it. It reads only.
func Explain(w *workspace.Workspace, name string, runs run.Store, box outbox.Box) (Why, error) {
	r, err := w.Get(name)
	if err != nil {
		return Why{}, err
	}
	v := Why{
		Name: r.Name, Tool: workspace.ToolOf(r), Status: string(r.Status), Since: r.StatusSince, Source: string(r.Source),
		WaitingFor: r.WaitingFor, Interrupted: r.Interrupted && r.Status == state.Idle, ExitCode: r.ExitCode,
		Summary: WhyLine(r, time.Now()), Hooks: append([]state.HookEvent{}, r.Hooks...), Screen: currentScreen(r),
		Reactions: []WhyReaction{}, Outbox: []WhyMessage{}, SetupFailed: r.SetupFailed,
	}
	// A broken run file hides only its own run (owt run status names it).
	all, _ := runs.List()
	v.Task = taskOf(run.OfRepo(all, r.Repo), r.Name)
	for _, n := range sortedKeys(r.Reactions) {
		re := r.Reactions[n]
		if re == nil || re.Attempts == 0 && re.Pending == "" && re.NeedsYou == "" {
			continue
		}
		v.Reactions = append(v.Reactions, WhyReaction{Name: n, Attempts: re.Attempts, Pending: re.Pending, NeedsYou: re.NeedsYou, At: re.At})
	}
	msgs, err := box.Queued(outbox.Of(r))
	if err != nil {
		return v, fmt.Errorf("read the outbox of %s: %w", r.Name, err)
	}
	for _, m := range msgs {
		v.Outbox = append(v.Outbox, WhyMessage{Kind: m.Kind, From: m.From, QueuedAt: m.QueuedAt, Held: m.Why, Text: untrusted.From(m.Text)})
	}
	return v, nil
}

// taskOf is the run task worked on by the agent called name, the latest
// run's when several ran it.
func taskOf(runs []*run.Run, name string) *WhyTask {
	var out *WhyTask
	var at time.Time
	for _, rn := range runs {
		for _, t := range rn.Tasks {
			if t.Name != name || out != nil && !rn.CreatedAt.After(at) {
				continue
			}
			out, at = &WhyTask{Run: rn.Name, ID: t.ID, State: t.State, Since: t.Since, Attempt: t.Attempt,
				Why: t.Why, Owed: t.Owed, Failure: t.Failure, Evidence: t.Evidence}, rn.CreatedAt
		}
	}
	return out
}

func sortedKeys(m map[string]*state.Reaction) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// currentScreen is the record's screen evidence when it speaks of the
// status the record has now.
func currentScreen(r *state.Record) *state.ScreenEvidence {
	if s := r.Screen; s != nil && s.Status == r.Status {
		return s
	}
	return nil
}

// settingHook is the hook event in r's ring that set its status st: the
// first of the latest events that reported st (the ones after it only
// said it again).
func settingHook(r *state.Record, st state.Status) *state.HookEvent {
	var out *state.HookEvent
	for i := len(r.Hooks) - 1; i >= 0 && r.Hooks[i].Status == st; i-- {
		out = &r.Hooks[i]
	}
	return out
}

// WhyLine is owt why's first line for r: the status, since when, and what
// set it — "waiting since 12:03 (hook PermissionRequest, confirmed by
// screen: 'Do you want to proceed?' — rule claude/permission)". The
// screen's words in it are made safe to draw.
func WhyLine(r *state.Record, now time.Time) string {
	st := string(r.Status)
	if r.Status == state.Waiting && r.WaitingFor != "" {
		st += " for " + r.WaitingFor
	}
	if r.Status == state.Exited && r.ExitCode != nil {
		st += fmt.Sprintf(" (code %d)", *r.ExitCode)
	}
	var why []string
	scr := currentScreen(r)
	switch r.Source {
	case state.FromHook:
		h := "hook"
		if ev := settingHook(r, r.Status); ev != nil {
			h += " " + ev.Event
			if ev.Detail != "" {
				h += " (" + ev.Detail + ")"
			}
		}
		why = append(why, h)
		if scr != nil {
			why = append(why, "confirmed by "+screenSays(scr))
		}
	case state.FromScreen:
		switch {
		case scr != nil && scr.Set && scr.Was != "":
			was := string(scr.Was)
			if scr.WasSource != "" {
				was = string(scr.WasSource) + " said " + was
			}
			why = append(why, "the screen corrected what the "+was+": "+strings.TrimPrefix(screenSays(scr), "screen: "))
		case scr != nil:
			why = append(why, screenSays(scr))
		default:
			why = append(why, "screen")
		}
		if r.Interrupted && r.Status == state.Idle {
			mark := "turn interrupted"
			if scr != nil && !scr.Mark.Empty() {
				mark += " ('" + scr.Mark.Short(60) + "')"
			}
			why = append(why, mark)
		}
	default:
		why = append(why, "owt")
		if scr != nil {
			why = append(why, "confirmed by "+screenSays(scr))
		}
	}
	if r.Status == state.Idle && !r.TurnError.Empty() {
		why = append(why, "turn failed: "+r.TurnError.Short(60))
	}
	return fmt.Sprintf("%s since %s (%s)", st, clock(r.StatusSince, now), strings.Join(why, ", "))
}

// screenSays is a screen reading in a few words: its first matched row
// and its rule.
func screenSays(s *state.ScreenEvidence) string {
	out := "screen"
	if len(s.Lines) > 0 {
		out += ": '" + s.Lines[0].Short(60) + "'"
	}
	return out + " — rule " + s.Rule
}

// clock is t as a person reads it next to now: the time of day today,
// with the date before.
func clock(t, now time.Time) string {
	if t.IsZero() {
		return "?"
	}
	t, now = t.Local(), now.Local()
	if t.YearDay() == now.YearDay() && t.Year() == now.Year() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}
