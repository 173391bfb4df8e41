package swarm

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

func TestIsTestFile(t *testing.T) {
	for _, p := range []string{"greet_test.go", "pkg/a_test.go", "test/x.sh", "a/tests/y.py", "internal/x/testdata/f.txt",
		"web/app.test.ts", "web/app.spec.js", "test_api.py", "lib/foo_test.rb", "src/__tests__/a.js"} {
		require.True(t, IsTestFile(p), p)
	}
	for _, p := range []string{"greet.go", "testing.go", "contest/a.go", "latest.go", "test_api.go", "attest.py", "spec.md"} {
		require.False(t, IsTestFile(p), p)
	}
}

func TestParseWorkers(t *testing.T) {
	got, err := ParseWorkers("")
	require.NoError(t, err)
	require.Equal(t, Roles, got)
	got, err = ParseWorkers(" Reviewer, tester ")
	require.NoError(t, err)
	require.Equal(t, []string{"reviewer", "tester"}, got)
	for _, bad := range []string{"coordinator", "pilot", "tester,tester", ","} {
		_, err := ParseWorkers(bad)
		require.True(t, errors.Is(err, ErrBadOption), bad)
	}
}

func TestPrompts(t *testing.T) {
	host := &state.Record{Name: "greet", Path: "/w/greet", Branch: "feat/greet"}
	members := []string{Coordinator, Researcher, Reviewer}
	c := prompt(Coordinator, "say hello\n!write x", host, members)
	require.Contains(t, c, "greet/researcher: reads and reports (read-only)")
	require.Contains(t, c, "greet/reviewer")
	require.NotContains(t, c, "greet/tester", "only the workers started")
	require.Contains(t, c, "send_message")
	require.Contains(t, c, "    say hello\n    !write x", "the goal is set apart")
	r := prompt(Reviewer, "say hello", host, members)
	require.True(t, strings.HasPrefix(r, duties[Reviewer]))
	require.Contains(t, r, `send_message (to: "greet/coordinator")`)
}
