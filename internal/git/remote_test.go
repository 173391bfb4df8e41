package git

import (
	"context"
	"errors"
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

// A process-wide default (the monitor's) bounds a git command that has
// no deadline of its own.
func TestDefaultTimeoutBoundsACommandWithoutItsOwnDeadline(t *testing.T) {
	dir, repo := newRepo(t)
	g(t, dir, "remote", "add", "origin", "ssh://nobody.invalid/app.git")
	g(t, dir, "config", "core.sshCommand", "sleep 3 #")
	SetDefaultTimeout(300 * time.Millisecond)
	defer SetDefaultTimeout(0)
	_, err := repo.run("fetch", "origin")
	require.True(t, errors.Is(err, context.DeadlineExceeded), "want the deadline named, got %v", err)
}
