package lifecycle

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace/worldtest"
)

// owt doctor --fix read a record whose worktree and session were gone
// (its agent being deleted) and forgets it after another agent was given
// the name: the new agent's record stays, its life is not taken for a
// deleted one (doctor --fix would then end its session), and its session
// lives on.
func TestDoctorForgetsOnlyTheAgentItRead(t *testing.T) {
	w := worldtest.New(t)
	wt := Of(w.Workspace())
	first, err := wt.Create(CreateOptions{Task: "Add a feature", Name: "b4", NoAgent: true, NoSetup: true})
	require.NoError(t, err)
	require.NoError(t, wt.Delete("b4", DeleteOptions{Force: true}))
	second, err := wt.Create(CreateOptions{Task: "Add another", Name: "b4", NoAgent: true, NoSetup: true})
	require.NoError(t, err)
	require.NotEqual(t, first.Life, second.Life)

	var rep DoctorReport
	fixed, _ := wt.forget(first, &rep) // what doctor read before the delete
	require.False(t, fixed, "doctor forgot an agent it never read")
	cur, err := wt.Get("b4")
	require.NoError(t, err, "the second b4's record was dropped")
	require.Equal(t, second.Life, cur.Life)
	require.False(t, state.DeletedLife(wt.Repo.Root, second.Life), "the live b4's life is taken for a deleted one")

	rep, err = wt.Doctor(true)
	require.NoError(t, err)
	require.Contains(t, w.Run("tmux", "list-sessions", "-F", "#{session_id}"), second.SessionID, "doctor --fix ended the live b4's session")
}
