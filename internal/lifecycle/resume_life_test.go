package lifecycle

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// owt restore of an agent whose session is lost finds a session of its
// name running owt's runner in its repository, but made for another life
// of the name (an agent deleted while its tmux server was out of reach):
// that session is not this agent's, and is never recorded as its own.
func TestRestoreNeverAdoptsTheSessionOfAnotherLife(t *testing.T) {
	w, wt, rec := lostClaudeAgent(t)

	// The deleted b4's session, its runner still there.
	w.Run("tmux", "new-session", "-d", "-s", rec.Session, "-c", rec.Path,
		"-e", "OWT_NAME=b4", "-e", "OWT_REPO="+rec.Repo, "-e", "OWT_LIFE=0123456789abcdef",
		"sleep 300 # owt _run")
	stray := strings.TrimSpace(w.Run("tmux", "display-message", "-p", "-t", "="+rec.Session+":", "#{session_id}"))

	_, err := wt.ResumeAgent("b4", "")
	require.False(t, errors.Is(err, ErrNotLost), "the other life's session was taken for b4's: %v", err)
	cur, gerr := wt.Get("b4")
	require.NoError(t, gerr)
	require.NotEqual(t, stray, cur.SessionID, "b4 is recorded in the deleted agent's session")
}
