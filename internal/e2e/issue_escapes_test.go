package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
)

// Escape sequences in an issue's title go whole: none of their
// parameters ends up in the branch name or the prompt.
func TestIssueTitleEscapesLeaveNothingInTheBranchOrPrompt(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	e.SetGh(fixture.GhFixture{Args: []string{"issue", "view", "43"},
		Stdout: `{"title":"Crash \u001b[31mred\u001b[0m thing","body":"see \u001b]8;;http://x\u001b\\the link\u001b]8;;\u001b\\","comments":[]}`})
	dry := e.MustOwt(repo, "new", "--dry-run", "--issue", "43")
	require.Contains(t, dry, "name issue-43, branch issue-43-crash-red-thing")
	require.Contains(t, dry, "GitHub issue #43: Crash red thing")
	require.Contains(t, dry, "see the link")
	require.NotContains(t, dry, "31m")
	require.NotContains(t, dry, "8;;")
}
