package status

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

func TestSummaryLeavesShellsOut(t *testing.T) {
	shell := rec("sh", state.Idle, time.Now())
	shell.NoAgent = true
	s := Summarize([]*state.Record{rec("a", state.Idle, time.Now()), shell})
	require.Equal(t, 1, s.Total)
	require.Equal(t, "○ 1", s.Render(StylePlain))
	require.Equal(t, "", Summarize([]*state.Record{shell}).Render(StylePlain))
}

func TestSummaryNamesAShellThatNeedsYouWithoutCountingIt(t *testing.T) {
	shell := rec("sh", state.Idle, time.Now())
	shell.NoAgent = true
	shell.Reactions = map[string]*state.Reaction{"ci_failed": {NeedsYou: "no agent works in it: test failed"}}
	s := Summarize([]*state.Record{rec("a", state.Idle, time.Now()), shell})
	require.Equal(t, 1, s.Total)
	require.Equal(t, []string{"sh"}, s.Waiting)
	require.Equal(t, "▲ sh ○ 1", s.Render(StylePlain))
}
