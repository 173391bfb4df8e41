package hook

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

func TestHookPanicIsLoggedNotAFailure(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
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

// A tool writes the event and closes stdin, maybe in pieces: all of it
// is read. One that keeps stdin open gets no hang past stdinWait, and
// the hook goes on without its JSON.
func TestReadStdinReadsToTheEndOrGivesUp(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	big := strings.Repeat("x", 10000)
	go func() {
		_, _ = w.WriteString(`{"a":"` + big)
		time.Sleep(50 * time.Millisecond)
		_, _ = w.WriteString(`"}`)
		_ = w.Close()
	}()
	require.Equal(t, `{"a":"`+big+`"}`, string(readStdin(r)))
	require.NoError(t, r.Close())

	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	require.Empty(t, readStdin(null))
	require.Equal(t, "{}", string(readStdin(strings.NewReader("{}"))))

	prev := stdinWait
	stdinWait = 200 * time.Millisecond
	t.Cleanup(func() { stdinWait = prev })
	r, w, err = os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	_, _ = w.WriteString(`{"half":`)
	start := time.Now()
	require.Nil(t, readStdin(r), "stdin left open: no JSON")
	require.GreaterOrEqual(t, time.Since(start), stdinWait)
}
