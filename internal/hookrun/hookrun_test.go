package hookrun

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

func TestHookPanicIsLoggedNotAFailure(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ran := false
	require.NotPanics(t, func() {
		neverFail(func() {
			ran = true
			var m map[string]int
			m["boom"]++ // a nil map: the kind of bug a hook must survive
		})
	})
	require.True(t, ran)
	log, err := os.ReadFile(state.LogPath())
	require.NoError(t, err)
	require.Contains(t, string(log), "hook: panic (the agent was not stopped): assignment to entry in nil map")
}
