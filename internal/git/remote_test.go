package git

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A push to a remote that never answers ends at the caller's deadline
// with the deadline's error, so the monitor's pull-request opener can
// log it and try again later instead of waiting for ever.
func TestPushToARemoteThatNeverAnswersEndsAtTheDeadline(t *testing.T) {
	dir, repo := newRepo(t)
	g(t, dir, "remote", "add", "origin", "ssh://nobody.invalid/app.git")
	// The "ssh" git starts for the remote hangs, as a dead host does.
	g(t, dir, "config", "core.sshCommand", "sleep 3 #")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	err := repo.WithContext(ctx).Push("origin", "main")
	require.Error(t, err)
	require.True(t, errors.Is(err, context.DeadlineExceeded), "want the deadline named, got %v", err)
}

// A branch's own work is counted while other branches are deleted around
// it (30 parallel owt deletes): a branch gone mid-read is no error.
func TestOnlyOnWhileOtherBranchesAreDeleted(t *testing.T) {
	dir, repo := newRepo(t)
	g(t, dir, "checkout", "-q", "-b", "mine")
	commitFile(t, dir, "m.txt", "mine\n", "my work")
	g(t, dir, "checkout", "-q", "main")
	for i := 0; i < 300; i++ {
		g(t, dir, "branch", "other-"+strconv.Itoa(i))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 300; i++ {
			_, _ = run(dir, "update-ref", "-d", "refs/heads/other-"+strconv.Itoa(i))
		}
	}()
	for {
		n, err := repo.OnlyOn("mine", "main")
		require.NoError(t, err)
		require.Equal(t, 1, n)
		select {
		case <-done:
			return
		default:
		}
	}
}
