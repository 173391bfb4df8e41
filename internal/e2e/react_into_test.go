package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A run task's work lands in the run's into, not in its worktree's base:
// the conflict reaction predicts against into, so the agent learns that
// its branch conflicts with what its sibling landed there (its base, main,
// has no such file: against main it would be clean).
func TestARunTaskIsToldOfAConflictWithTheRunsInto(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "clash.toml", clashPlan())
	e.MustOwt(repo, "run", "start", "clash.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "b's agent is told it conflicts with feat/x", func() bool {
		return len(e.promptsWith("clash-b", "now conflicts with feat/x")) == 1
	})
	msg := e.promptsWith("clash-b", "now conflicts with feat/x")[0]
	require.Contains(t, msg, "  same.txt")
	require.Contains(t, msg, "from-a", "the other side: a's commit on feat/x")
	require.Empty(t, e.promptsWith("clash-a", "conflicts with"), "a landed cleanly: nothing to tell it")
}
