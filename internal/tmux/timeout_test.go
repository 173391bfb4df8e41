package tmux

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A stopped server answers nothing: a client with a Timeout (the
// monitor's) gets the deadline's error from a command and from a
// snapshot — never a partial pane list that would read as agents gone.
func TestTimeoutEndsCallsToAStoppedServer(t *testing.T) {
	c := server(t)
	pid, err := c.Run("display-message", "-p", "#{pid}")
	require.NoError(t, err)
	n, err := strconv.Atoi(strings.TrimSpace(pid))
	require.NoError(t, err)
	require.NoError(t, syscall.Kill(n, syscall.SIGSTOP))
	t.Cleanup(func() { _ = syscall.Kill(n, syscall.SIGCONT) })

	bounded := &Client{Bin: c.Bin, Socket: c.Socket, Timeout: 300 * time.Millisecond}
	_, err = bounded.Run("list-sessions")
	require.True(t, errors.Is(err, context.DeadlineExceeded), "want the deadline named, got %v", err)
	panes, captures, err := bounded.Snapshot(nil, "⟦m⟧")
	require.True(t, errors.Is(err, context.DeadlineExceeded), "want the deadline named, got %v", err)
	require.Nil(t, panes)
	require.Nil(t, captures)

	require.NoError(t, syscall.Kill(n, syscall.SIGCONT))
	_, err = bounded.Run("list-sessions")
	require.NoError(t, err, "the same client works once the server answers")
}
