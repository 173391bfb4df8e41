package monitor

import (
	"strings"
	"testing"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// A failed turn's error is the agent's words: the notice that says it
// (a tmux message, notify-send, the log, OWT_TEXT) carries no control
// character that would drive a terminal.
func TestNoticeOfAFailedTurnDrawsTheAgentsErrorInert(t *testing.T) {
	r := &state.Record{Name: "a", Status: state.Idle, TurnError: untrusted.From("rate limit\x1b]0;PWNED\x07\r\nretry")}
	got := message(r)
	if strings.ContainsAny(got, "\x1b\x07\r\n") {
		t.Fatalf("the notice carries the agent's controls: %q", got)
	}
	if !strings.Contains(got, "rate limit]0;PWNED retry") {
		t.Fatalf("the notice lost the agent's words: %q", got)
	}
}

// Codex's "Hooks need review" asks the user to trust hooks, not the
// folder: the notice says which.
func TestNoticeOfAFirstRunScreenSaysWhatItAsks(t *testing.T) {
	for reason, want := range map[string]string{
		"hooks": "owt: a needs you: codex asks for you to review and trust its hooks",
		"trust": "owt: a needs you: codex asks for you to trust the folder",
		"login": "owt: a needs you: codex asks for a login",
	} {
		r := &state.Record{Name: "a", Tool: "codex", Status: state.Waiting, WaitingFor: reason}
		if got := message(r); got != want {
			t.Fatalf("%s: %q, want %q", reason, got, want)
		}
	}
	// Every first-run reason has its words, and only those do.
	for _, reason := range []string{agent.WaitTrust, agent.WaitHooks, agent.WaitLogin, agent.WaitAPIKey, agent.WaitPermission, "question"} {
		if _, ok := waitWords[reason]; ok != agent.FirstRunWait(reason) {
			t.Errorf("%s: words %v, first-run %v", reason, ok, agent.FirstRunWait(reason))
		}
	}
}
