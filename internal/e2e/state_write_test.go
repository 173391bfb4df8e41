package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// breakStateWrites makes every write of the repo's state file fail while
// reads still work, even for root (the tests run as root, where chmod does
// not stop a write): owt takes an exclusive lock on <state>.lock, opened
// read-write, before every write, and a directory cannot be opened for
// writing by anyone. It returns the function that mends it.
func (e *Env) breakStateWrites() func() {
	e.t.Helper()
	files, err := filepath.Glob(filepath.Join(e.Var("XDG_STATE_HOME"), "owt", "repos", "*.json"))
	require.NoError(e.t, err)
	require.Len(e.t, files, 1, "one repo's state file")
	lock := files[0] + ".lock"
	require.NoError(e.t, os.RemoveAll(lock))
	require.NoError(e.t, os.Mkdir(lock, 0o700))
	return func() { require.NoError(e.t, os.Remove(lock)) }
}

// A command whose record write fails exits non-zero with the reason and
// never says it did what it did not; nothing half-done is reported done.
func TestAFailedStateWriteIsNeverReportedAsDone(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	r1 := e.shell(repo, "r1")
	mg := e.shell(repo, "mg")
	e.commitIn(mg.Path, "m.txt", "m\n", "work")
	gone := e.shell(repo, "gone")
	e.Tmux("kill-session", "-t", gone.Session)
	require.NoError(t, os.RemoveAll(gone.Path))
	mend := e.breakStateWrites()

	// delete: refused before anything is removed.
	r := e.Owt(repo, "delete", "r1", "--force", "--yes")
	require.NotEqual(t, 0, r.Code)
	require.NotContains(t, r.Stdout, "deleted")
	require.Contains(t, r.Stderr, "state", r.Stderr)
	e.requireKept(repo, r1)

	// merge: the merge landed; the teardown did not happen, and it says so.
	r = e.Owt(repo, "merge", "mg", "--yes")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "state", r.Stderr)
	require.NotContains(t, r.Stdout, "removed mg")
	require.Equal(t, "m", e.Git(repo, "show", "main:m.txt"))
	e.requireKept(repo, mg)

	// doctor --fix: a record it could not forget is not "fixed".
	r = e.Owt(repo, "doctor", "--fix", "--json")
	require.NotEqual(t, 0, r.Code)
	found := false
	for _, f := range doctorJSON(t, r.Stdout).Findings {
		if f.Name == "gone" {
			found = true
			require.False(t, f.Fixed, "%+v", f)
			require.Contains(t, f.Action, "state")
		}
	}
	require.True(t, found, r.Stdout)
	require.Len(t, e.List(repo), 3, "every record is still there")

	// new: nothing is left behind.
	r = e.Owt(repo, "new", "--no-agent", "--no-setup", "--name", "n1", "Task")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "state", r.Stderr)
	require.NoDirExists(t, filepath.Join(filepath.Dir(r1.Path), "n1"))
	require.Empty(t, e.Git(repo, "branch", "--list", "feat/n1"))

	mend()
	e.MustOwt(repo, "delete", "r1", "--force", "--yes")
	e.requireGone(repo, r1)
}
