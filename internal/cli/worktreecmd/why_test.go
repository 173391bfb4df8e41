package worktreecmd

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// The screen's rows and the messages owed are other people's words: owt
// why draws them inert, one line each, whatever bytes they hold.
func TestWhyDrawsPaneLinesInert(t *testing.T) {
	hostile := "Do you want to \x1b]0;PWNED\x07proceed?\r\nforged: line\x1b[2J"
	now := time.Now()
	rec := &state.Record{Name: "a", Tool: "claude", Status: state.Waiting, StatusSince: now, Source: state.FromHook,
		Hooks:  []state.HookEvent{{Event: "PermissionRequest", Status: state.Waiting, At: now}},
		Screen: &state.ScreenEvidence{Status: state.Waiting, Rule: "claude/permission", RuleText: "waiting: permission prompt (claude)", Lines: []untrusted.Untrusted{untrusted.From(hostile)}, At: now}}
	v := status.Why{Name: "a", Summary: status.WhyLine(rec, now), Hooks: rec.Hooks, Screen: rec.Screen,
		Outbox: []status.WhyMessage{{Kind: "checks", QueuedAt: now, Text: untrusted.From("fix \x1b[31mit\nforged: too")}}}
	var out bytes.Buffer
	printWhy(&out, v)
	s := out.String()
	for _, bad := range []string{"\x1b", "\x07", "\r", "\nforged"} {
		require.NotContains(t, s, bad)
	}
	first, _, _ := strings.Cut(s, "\n")
	require.Equal(t, "a: waiting since "+now.Format("15:04")+" (hook PermissionRequest, confirmed by screen: 'Do you want to ]0;PWNEDproceed? …' — rule claude/permission)", first)
	require.Contains(t, s, "│ Do you want to ]0;PWNEDproceed? forged: line[2J\n")
	require.Contains(t, s, "(checks): fix [31mit …")
}
