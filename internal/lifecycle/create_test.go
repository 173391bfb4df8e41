package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace/worldtest"
)

type world = worldtest.World

func newWorld(t *testing.T) *world { return worldtest.New(t) }

// worktreesOf is the world's repo seen by lifecycle.
func worktreesOf(w *world) *Worktrees { return Of(w.Workspace()) }

func TestCreateRollsBackAtEveryStep(t *testing.T) {
	w := newWorld(t)
	exclude := filepath.Join(w.Repo, ".git", "info", "exclude")
	before, _ := os.ReadFile(exclude)

	for _, step := range []string{"reserve", "worktree", "files", "session", "record"} {
		t.Run(step, func(t *testing.T) {
			ws := worktreesOf(w)
			boom := errors.New("injected failure after " + step)
			testHookAfterStep = func(s string) error {
				if s == step {
					return boom
				}
				return nil
			}
			defer func() { testHookAfterStep = nil }()

			_, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
			require.ErrorIs(t, err, boom)

			require.Empty(t, w.Run("git", "-C", w.Repo, "branch", "--list", "feat/*"), "no orphan branch")
			require.NotContains(t, w.Run("git", "-C", w.Repo, "worktree", "list"), "app.worktrees")
			require.NoDirExists(t, filepath.Join(filepath.Dir(w.Repo), "app.worktrees", "add-feature"))
			sessions := w.Run("tmux", "list-sessions", "-F", "#{session_name}")
			require.Equal(t, "harness", sessions, "no orphan session")
			recs, err := ws.Records()
			require.NoError(t, err)
			require.Empty(t, recs, "no orphan record")
			after, _ := os.ReadFile(exclude)
			require.Equal(t, string(before), string(after), "info/exclude restored")
		})
	}

	// Without a failure the same call succeeds, so the steps above did run.
	ws := worktreesOf(w)
	rec, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
	require.NoError(t, err)
	require.Equal(t, "add-feature", rec.Name)
	require.DirExists(t, rec.Path)
}

// A failed create lets its name's create lock go only after its rollback
// ran: until then 'owt doctor --fix' must not take the half-made
// worktree for an interrupted one and repair it under the rollback.
func TestCreateHoldsItsLockUntilTheRollbackEnds(t *testing.T) {
	w := newWorld(t)
	ws := worktreesOf(w)
	boom := errors.New("injected failure after the session")
	heldDuringRollback := false
	testHookAfterStep = func(s string) error {
		switch s {
		case "session":
			return boom
		case "rolled back":
			heldDuringRollback = state.IsHeld(state.CreateLock(ws.Repo.Root, "add-feature"))
		}
		return nil
	}
	defer func() { testHookAfterStep = nil }()

	_, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
	require.ErrorIs(t, err, boom)
	require.True(t, heldDuringRollback, "the create lock was let go before the rollback ended")
	require.False(t, state.IsHeld(state.CreateLock(ws.Repo.Root, "add-feature")), "the create lock is let go at the end")
}

// owt new chooses a name before it has tmux's sessions; cut off (kill -9)
// right then beside a session made by hand with that name, it leaves a
// record naming that session. owt doctor --fix undoes the record and
// leaves the session alone: its environment says it is no agent's.
func TestDoctorUndoesACreateCutOffBesideAHandMadeSession(t *testing.T) {
	w := newWorld(t)
	ws := worktreesOf(w)
	w.Run("tmux", "new-session", "-d", "-s", "app/add-feature")
	names, err := ws.Repo.NamesInUse()
	require.NoError(t, err)
	o := CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true}
	rec, held, err := ws.reserve(o, o.Task, "", "main", "", "", nil, names)
	require.NoError(t, err)
	require.Equal(t, "app/add-feature", rec.Session, "chosen without the sessions")
	held.Release() // its owt new is gone

	rep, err := ws.Doctor(true)
	require.NoError(t, err)
	var found *Finding
	for i := range rep.Findings {
		if rep.Findings[i].Kind == InterruptedCreate {
			found = &rep.Findings[i]
		}
	}
	require.NotNil(t, found, "%+v", rep.Findings)
	require.True(t, found.Fixed, found.Action)
	recs, err := ws.Records()
	require.NoError(t, err)
	require.Empty(t, recs)
	require.Contains(t, w.Run("tmux", "list-sessions", "-F", "#{session_name}"), "app/add-feature", "the hand-made session stays")
}
