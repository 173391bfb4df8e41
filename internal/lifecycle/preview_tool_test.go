package lifecycle

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// owt new --dry-run shows the prompt whatever the tool, and says when
// owt new would refuse the tool; before, a tool that was not installed
// went unmentioned until the real owt new.
func TestPreviewSaysTheToolIsNotInstalled(t *testing.T) {
	w := newWorld(t)
	ws := worktreesOf(w)
	gitBin, err := exec.LookPath("git")
	require.NoError(t, err)
	t.Setenv("PATH", filepath.Dir(gitBin))
	if _, err := exec.LookPath("codex"); err == nil {
		t.Skip("codex is installed beside git")
	}
	p, err := ws.Preview(CreateOptions{Task: "fix the login", Tool: "codex", Template: "none"})
	require.NoError(t, err)
	require.Equal(t, "fix the login", p.Prompt)
	require.Contains(t, p.ToolProblem, `tool "codex" is not installed`)

	p, err = ws.Preview(CreateOptions{Task: "fix the login", Tool: "nosuch", Template: "none"})
	require.NoError(t, err)
	require.Contains(t, p.ToolProblem, `unknown tool "nosuch"`)
}
