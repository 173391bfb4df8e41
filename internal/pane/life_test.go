package pane

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

// The runner of a deleted agent's session never touches the record of a
// later agent given its name, and never says 'owt delete NAME' for it.
func TestARunnerOfAnotherLifeLeavesTheRecordAlone(t *testing.T) {
	wd := newWorld(t)
	w := &runner{Workspace: wd.Workspace()}
	require.NoError(t, w.Store.Update(func(f *state.File) error {
		f.Records["b4"] = &state.Record{Name: "b4", Life: "new", Status: state.Idle, Tool: "claude"}
		return nil
	}))
	t.Setenv(state.LifeEnv, "old")
	_, _, err := open(wd.Tmux, w.Repo.Root, "b4")
	require.Error(t, err)
	require.Contains(t, err.Error(), "b4 was deleted")
	require.NotContains(t, err.Error(), "owt delete")

	t.Setenv(state.LifeEnv, "new")
	_, rec, err := open(wd.Tmux, w.Repo.Root, "b4")
	require.NoError(t, err)
	require.Equal(t, "new", rec.Life)

	// The old agent exits: the new record stays as it was.
	old := *rec
	old.Life = "old"
	var out bytes.Buffer
	t.Setenv("SHELL", "/nonexistent/shell") // execShell fails instead of replacing the test
	_ = w.finish(wd.Tmux, &old, 0, &out)
	require.Contains(t, out.String(), "b4 was deleted")
	require.NotContains(t, out.String(), "owt delete")
	cur, err := w.Get("b4")
	require.NoError(t, err)
	require.Equal(t, state.Idle, cur.Status, "the new agent is not marked exited")
}
