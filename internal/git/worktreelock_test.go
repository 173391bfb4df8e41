package git

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// git's own worktree add writes its admin files without a lock; adds,
// lists and removes in parallel all succeed because owt takes turns.
func TestParallelWorktreeChangesTakeTurns(t *testing.T) {
	t.Parallel()
	_, r := newRepo(t)
	r.CommonDir = "" // found again from Root, as records-only Repos do
	root := tmp(t)
	const n = 20
	errs := make([]error, 3*n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			errs[i] = r.AddWorktree(filepath.Join(root, fmt.Sprint(i)), fmt.Sprintf("p/%d", i), "")
		}()
		go func() {
			defer wg.Done()
			_, errs[n+i] = r.Worktrees()
		}()
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[2*n+i] = r.RemoveWorktree(filepath.Join(root, fmt.Sprint(i)), false)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	wts, err := r.Worktrees()
	require.NoError(t, err)
	require.Len(t, wts, 1)
}
