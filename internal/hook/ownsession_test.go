package hook

import (
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
)

// An event carrying the agent's id is another tool's only when it names
// a session other than the agent's while a hook of this start says the
// agent works on a turn, or a session already known to be another's.
func TestOwnSession(t *testing.T) {
	start := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	call := func(event string) Call {
		return Call{Kind: "claude", Event: event, Getenv: func(string) string { return "id1" }}
	}
	rec := func(status state.Status, src state.Source, since time.Time) *state.Record {
		return &state.Record{AgentID: "id1", AgentIDAt: start, AgentSession: "mine",
			Status: status, Source: src, StatusSince: since}
	}
	ev := func(s string) agent.HookEvent { return agent.HookEvent{SessionID: s} }
	for _, c := range []struct {
		what  string
		r     *state.Record
		sess  string
		own   bool
		other string
	}{
		{"its own session", rec(state.Working, state.FromHook, start.Add(time.Second)), "mine", true, ""},
		{"a run it started mid-turn", rec(state.Working, state.FromHook, start.Add(time.Second)), "nested", false, "nested"},
		{"a new session at its idle prompt (/clear)", rec(state.Idle, state.FromHook, start.Add(time.Second)), "cleared", true, ""},
		{"a new session after it waited (plan approved, context cleared)", rec(state.Waiting, state.FromHook, start.Add(time.Second)), "cleared", true, ""},
		{"working said by an earlier start (restart, restore)", rec(state.Working, state.FromHook, start.Add(-time.Minute)), "fresh", true, ""},
		{"working said by the screen", rec(state.Working, state.FromScreen, start.Add(time.Second)), "other", true, ""},
		{"no session id", rec(state.Working, state.FromHook, start.Add(time.Second)), "", true, ""},
	} {
		other, own := ownSession(c.r, call("UserPromptSubmit"), ev(c.sess))
		if own != c.own || other != c.other {
			t.Errorf("%s: ownSession = %q, %v; want %q, %v", c.what, other, own, c.other, c.own)
		}
	}
	r := rec(state.Idle, state.FromHook, start.Add(time.Second))
	r.OtherSessions = []string{"nested"}
	if _, own := ownSession(r, call("SessionEnd"), ev("nested")); own {
		t.Error("the end of a session known to be another's is not the agent's")
	}
	r.AgentID = ""
	if _, own := ownSession(r, call("SessionEnd"), ev("nested")); !own {
		t.Error("a record of an older owt (no id) takes any hook")
	}
}
