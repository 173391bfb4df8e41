package monitor

import (
	"strings"
	"testing"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/text"
)

// A failed turn's error is the agent's words: the notice that says it
// (a tmux message, notify-send, the log, OWT_TEXT) carries no control
// character that would drive a terminal.
func TestNoticeOfAFailedTurnDrawsTheAgentsErrorInert(t *testing.T) {
	r := &state.Record{Name: "a", Status: state.Idle, TurnError: text.From("rate limit\x1b]0;PWNED\x07\r\nretry")}
	got := message(r)
	if strings.ContainsAny(got, "\x1b\x07\r\n") {
		t.Fatalf("the notice carries the agent's controls: %q", got)
	}
	if !strings.Contains(got, "rate limit]0;PWNED retry") {
		t.Fatalf("the notice lost the agent's words: %q", got)
	}
}
