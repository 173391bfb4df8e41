package git

import (
	"context"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/proc"
)

type countingRunner struct{ n atomic.Int32 }

func (c *countingRunner) Run(ctx context.Context, cmd *exec.Cmd) error {
	c.n.Add(1)
	return proc.Exec{}.Run(ctx, cmd)
}

// A worktree's diff size against where it left its base is one git
// process (diff --merge-base), not two (merge-base, then diff): a monitor
// keeping the figures of 500 worktrees, or owt list --fresh, starts a
// quarter fewer processes. Not parallel: it counts every git run.
func TestDiffIsOneProcess(t *testing.T) {
	dir, r := newRepo(t)
	wt := filepath.Join(tmp(t), "wt")
	require.NoError(t, r.AddWorktree(wt, "owt/d", "main"))
	commitFile(t, wt, "new.txt", "x\ny\n", "new")
	commitFile(t, dir, "main-only.txt", "m\n", "main moves")

	c := &countingRunner{}
	restore := proc.Use(c)
	st, err := Diff(wt, "main")
	restore()
	require.NoError(t, err)
	require.Equal(t, DiffStat{Files: 1, Insertions: 2}, st)
	require.EqualValues(t, 1, c.n.Load())
}
