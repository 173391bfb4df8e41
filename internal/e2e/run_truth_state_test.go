package e2e

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Runs say what is true about their state (issue 16, items 5-9).

// A worktree name a task would get that is already in use (a worktree
// of that name, or its branch) is found when the run is registered, not
// after three attempts: owt run start and --dry-run say so, exit 1, and
// nothing is registered.
func TestRunStartRefusesAWorktreeNameInUse(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	nowhere := filepath.Join(e.Root, "no-server")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "g-a", "something else")
	e.WriteFile(repo, "g.toml", "[[task]]\nid = \"a\"\ntask = \"one\"\n\n[[task]]\nid = \"b\"\ntask = \"two\"\n")

	for _, args := range [][]string{{"run", "start", "g.toml"}, {"run", "start", "g.toml", "--dry-run"}} {
		r := e.Owt(repo, append([]string{"-S", nowhere}, args...)...)
		requireOneLineError(t, r, `task a of run g would get the worktree g-a, which is in use: owt already has a worktree with that name`)
		require.Equal(t, 1, r.Code, args)
		require.Equal(t, 3, e.Owt(repo, "run", "status", "g").Code, "nothing registered")
	}

	// A branch of that name counts too: Create would refuse it.
	e.WriteFile(repo, "k.toml", "[[task]]\nid = \"b\"\ntask = \"two\"\n")
	e.Git(repo, "branch", "feat/k-b")
	r := e.Owt(repo, "-S", nowhere, "run", "start", "k.toml", "--dry-run")
	requireOneLineError(t, r, "task b of run k would get the worktree k-b, which is in use: branch feat/k-b already exists")
	require.Equal(t, 1, r.Code)
	require.Empty(t, e.runFiles(), "nothing registered")
}
