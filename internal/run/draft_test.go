package run

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlanFromAnswer(t *testing.T) {
	plan := "[[task]]\nid = \"a\"\ntask = \"do a\"\n"
	require.Equal(t, plan, PlanFromAnswer("Here it is:\n\n```toml\n"+plan+"```\n\nGood luck."))
	require.Equal(t, plan, PlanFromAnswer("```sh\nls\n```\n```TOML\n"+plan+"```"), "the toml block, not the first")
	require.Equal(t, plan, PlanFromAnswer("```\n"+plan+"```"), "an unmarked block")
	require.Equal(t, plan, PlanFromAnswer("\n"+plan+"\n\n"), "bare TOML")

	// The prompt's own example is a valid plan (once its "..." is a task).
	p, err := Parse("prompt", []byte(PlanFromAnswer(DraftPrompt("add login"))))
	require.NoError(t, err)
	require.Equal(t, [][]string{{"models"}, {"api"}}, p.Waves())
	require.Contains(t, DraftPrompt("  add login \n"), "Goal:\nadd login\n")
}
