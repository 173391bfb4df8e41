package run

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseBudgetTokens(t *testing.T) {
	p, err := Parse("p.toml", []byte("[run]\nbudget_tokens = 2_000_000\n[[task]]\nid = \"a\"\ntask = \"x\"\n"))
	require.NoError(t, err)
	require.Equal(t, int64(2_000_000), p.BudgetTokens)

	p, err = Parse("p.toml", []byte("[[task]]\nid = \"a\"\ntask = \"x\"\n"))
	require.NoError(t, err)
	require.Zero(t, p.BudgetTokens, "no budget unless one is given")

	for plan, want := range map[string]string{
		"[run]\nbudget_tokens = 0\n":      `p.toml: run.budget_tokens: must be 1 or more, not 0`,
		"[run]\nbudget_tokens = \"1M\"\n": `p.toml: run.budget_tokens: must be an integer (a number of tokens), not a string`,
	} {
		_, err := Parse("p.toml", []byte(plan+"[[task]]\nid = \"a\"\ntask = \"x\"\n"))
		require.Equal(t, []string{want}, problems(t, err))
	}
}
