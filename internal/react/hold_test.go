package react

import (
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/state"
)

// storedAgent keeps an idle agent's record in a state dir of the test's
// own and returns it.
func storedAgent(t *testing.T) *state.Record {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	rec := &state.Record{Repo: "/r", Name: "a", Branch: "feat/a", Status: state.Idle, StatusSince: time.Now().Add(-time.Minute)}
	require.NoError(t, state.ForRepo(rec.Repo).Update(func(f *state.File) error {
		if f.Records == nil {
			f.Records = map[string]*state.Record{}
		}
		f.Records[rec.Name] = rec
		return nil
	}))
	return rec
}

// A second cause of a reaction that waits for the agent's turn is held
// while the first message is still in the outbox: one message, one
// attempt.
func TestANewConflictWaitsWhileTheLastMessageIsUndelivered(t *testing.T) {
	rec := storedAgent(t)
	x := &Reactor{Box: outbox.Box{Dir: t.TempDir()}}
	rc := config.Reaction{Action: "send", MaxAttempts: 3}
	conflict := func(sig string) failure {
		return failure{reaction: config.Conflict, seen: sig, sig: sig, afterTurn: true, what: sig, data: MessageData{Failure: sig}}
	}
	require.NoError(t, x.fail(rec, conflict("one"), rc))
	require.NoError(t, x.fail(rec, conflict("two"), rc))

	queued, err := x.Box.Queued(outbox.Agent{Repo: rec.Repo, Name: rec.Name})
	require.NoError(t, err)
	require.Len(t, queued, 1, "the second cause waits for the agent")
	f, err := state.ForRepo(rec.Repo).Load()
	require.NoError(t, err)
	st := f.Records[rec.Name].Reactions[config.Conflict]
	require.Equal(t, 1, st.Attempts)
	require.Equal(t, "one", st.Seen, "the held cause is judged again later")
}
