package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestReactionsMergeFieldByFieldOverTheDefaults(t *testing.T) {
	root := setup(t, "[reactions.ci_failed]\nmax_attempts = 5\n[pr]\npoll_interval = \"30s\"\n",
		"[checks]\ncommands = [[\"go\", \"test\", \"./...\"]]\n[reactions.ci_failed]\naction = \"notify\"\n")
	cfg, err := Load(root)
	require.NoError(t, err)
	require.Equal(t, Reaction{Action: "notify", MaxAttempts: 5}, cfg.Reactions[CIFailed])
	require.Equal(t, Reaction{Action: "send", MaxAttempts: 3}, cfg.Reactions[Conflict])
	require.Equal(t, [][]string{{"go", "test", "./..."}}, cfg.Checks.Commands)
	require.Equal(t, 30*time.Second, cfg.PR.PollInterval.Duration)
}

func TestBadReactionsAreErrorsNamingTheKey(t *testing.T) {
	root := setup(t, "[reactions.ci_fail]\naction = \"send\"\n[reactions.conflict]\naction = \"shout\"\nmax_attempts = 0\n[checks]\ncommands = [[]]\nfoo = 1\n", "")
	_, err := Load(root)
	require.Error(t, err)
	for _, want := range []string{"reactions.ci_fail: unknown reaction", "reactions.conflict.action", "reactions.conflict.max_attempts", "checks.commands", "checks.foo: unknown key"} {
		require.Contains(t, err.Error(), want)
	}
}

// A message template that parses but fails when run ({{.Nope}}) is a
// problem at load, not a message that silently loses its framing.
func TestAReactionTemplateThatFailsIsAProblem(t *testing.T) {
	root := setup(t, "[reactions.ci_failed]\nmessage = \"{{.Nope}} custom\"\n[reactions.conflict]\nmessage = \"{{.Name}} conflicts with {{.Base}}: {{.Failure}}\"\n", "")
	_, err := Load(root)
	require.Error(t, err)
	require.Contains(t, err.Error(), "reactions.ci_failed.message: the template fails")
	require.NotContains(t, err.Error(), "reactions.conflict.message")
}
