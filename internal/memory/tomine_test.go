package memory

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"
)

// Teardowns append; the reader gets them in order and passes over a line
// cut short by a crash, and over nothing else.
func TestGoneIsAppendedAndReadBack(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	t.Setenv("XDG_DATA_HOME", dir)
	xdg.Reload() // the XDG directories are read once, at start
	root := "/src/app"
	require.Equal(t, filepath.Join(dir, "owt", "memory"), filepath.Dir(toMinePath(root)), "in the test's state dir")
	got, err := GoneOf(root)
	require.NoError(t, err)
	require.Empty(t, got, "no file yet: nothing to mine")

	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	require.NoError(t, NoteGone(root, Gone{At: at, Agent: "a", Branch: "feat/a", Summary: "said a", DoneAt: at}))
	f, err := os.OpenFile(toMinePath(root), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"agent":"cut","summ`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, NoteGone(root, Gone{At: at, Agent: "b", Branch: "feat/b", Merged: []Commit{{Hash: "abc", Subject: "s", Body: "b"}}, Into: "main"}))

	got, err = GoneOf(root)
	require.NoError(t, err)
	require.Len(t, got, 1, "the cut line swallowed the next one's start")
	require.Equal(t, "a", got[0].Agent)
	require.Equal(t, "said a", got[0].Summary)
	require.True(t, got[0].DoneAt.Equal(at))

	require.NoError(t, NoteGone(root, Gone{At: at, Agent: "c", Branch: "feat/c", Merged: []Commit{{Hash: "def", Subject: "s", Body: "b"}}, Into: "main"}))
	got, err = GoneOf(root)
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, "c", got[1].Agent)
	require.Equal(t, []Commit{{Hash: "def", Subject: "s", Body: "b"}}, got[1].Merged)
	info, err := os.Stat(toMinePath(root))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

// Save keeps the last passes, newest first, KeptPasses in all.
func TestSaveKeepsTheLastPasses(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	t.Setenv("XDG_DATA_HOME", dir)
	xdg.Reload() // the XDG directories are read once, at start
	root := "/src/app"
	require.Equal(t, filepath.Join(dir, "owt", "memory"), filepath.Dir(lastPath(root)), "in the test's state dir")
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for i := 1; i <= 5; i++ {
		require.NoError(t, Save(Last{Repo: root, At: at.Add(time.Duration(i) * time.Hour), Lines: []string{"pass " + string(rune('0'+i))}}))
	}
	l, ok := LastOf(root)
	require.True(t, ok)
	require.Equal(t, []string{"pass 5"}, l.Lines)
	require.Len(t, l.Earlier, KeptPasses-1)
	require.Equal(t, []string{"pass 4"}, l.Earlier[0].Lines)
	require.Equal(t, []string{"pass 3"}, l.Earlier[1].Lines)
	require.Empty(t, l.Earlier[0].Earlier, "one list, not a chain")
}
