package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// What an agent said with owt done is its own words: owt status draws
// them inert (no escape sequence, no line of its own), and owt status
// --json keeps them as they came, for the consumer to judge.
func TestUntrustedOwtDoneTextIsDrawnInertByOwtStatus(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	it := newJSON(t, e, repo, "--tool", "claude", "--name", "d", "say hi")
	e.waitTurns("d", 1)

	hostile := "tests \x1b]0;PWNED\x07fail\r\nforged: line"
	r := e.Owt(it.Path+"/", "done", "--fail", hostile)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stdout, "\x1b")

	human := e.MustOwt(repo, "status", "d", "--lines", "0")
	require.NotContains(t, human, "\x1b", "no escape reaches the terminal")
	require.NotContains(t, human, "\x07")
	require.NotContains(t, human, "\r")
	require.NotContains(t, human, "\nforged", "the agent's words cannot forge a line")
	require.Contains(t, human, "owt done: failed (tests ]0;PWNEDfail forged: line)")

	done := e.doneOf(repo, "d")
	require.NotNil(t, done)
	require.Equal(t, hostile, done.Fail, "--json keeps the text as it came")
}
