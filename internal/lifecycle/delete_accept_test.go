package lifecycle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A confirmed delete (a popup's "yes, lose it") loses only what the user
// was shown: a file written after the question makes it refuse, and
// nothing is removed.
func TestDeleteWithAcceptRefusesWorkWrittenAfterTheQuestion(t *testing.T) {
	w := newWorld(t)
	ws := worktreesOf(w)
	rec, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(rec.Path, "draft.txt"), []byte("one\n"), 0o644))
	shown, err := ws.WhatWouldBeLost(rec)
	require.NoError(t, err)
	require.False(t, shown.Empty())

	// The agent writes more while the user reads the question.
	require.NoError(t, os.WriteFile(filepath.Join(rec.Path, "LATE.txt"), []byte("precious\n"), 0o644))
	err = ws.Delete(rec.Name, DeleteOptions{Accept: &shown})
	require.ErrorIs(t, err, ErrWouldLoseWork)
	require.Contains(t, err.Error(), "more than you agreed to")
	require.FileExists(t, filepath.Join(rec.Path, "LATE.txt"), "nothing removed")

	// Asked again, with what is there now: it goes.
	now, err := ws.WhatWouldBeLost(rec)
	require.NoError(t, err)
	require.NoError(t, ws.Delete(rec.Name, DeleteOptions{Accept: &now}))
	require.NoDirExists(t, rec.Path)
}

// Less than was shown is fine: the file the user agreed to lose was
// removed (or committed) meanwhile.
func TestDeleteWithAcceptGoesOnWhenLessWouldBeLost(t *testing.T) {
	w := newWorld(t)
	ws := worktreesOf(w)
	rec, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
	require.NoError(t, err)
	for _, f := range []string{"a.txt", "b.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(rec.Path, f), []byte(f), 0o644))
	}
	shown, err := ws.WhatWouldBeLost(rec)
	require.NoError(t, err)
	require.Len(t, shown.DirtyFiles, 2)

	require.NoError(t, os.Remove(filepath.Join(rec.Path, "b.txt")))
	require.NoError(t, ws.Delete(rec.Name, DeleteOptions{Accept: &shown}))
	require.NoDirExists(t, rec.Path)
}

// A loss accepted with a tip accepts the branch as it was: a commit made
// since is more, even when the counts say no more.
func TestALossAcceptedAtATipRefusesAnotherTip(t *testing.T) {
	accepted := Loss{Unmerged: 1 << 30, Tip: "aaaa"}
	if !(Loss{Unmerged: 3, Tip: "aaaa"}).Within(accepted) {
		t.Fatal("the branch as fetched is within")
	}
	if (Loss{Unmerged: 3, Tip: "bbbb"}).Within(accepted) {
		t.Fatal("a branch that moved since is not")
	}
	if (Loss{Unmerged: 3, Tip: "aaaa", EditedCopies: []string{".env"}}).Within(accepted) {
		t.Fatal("an edited copy is not")
	}
	if !(Loss{Unmerged: 3, Tip: "bbbb"}).Within(Loss{Unmerged: 3}) {
		t.Fatal("a loss accepted without a tip counts commits only")
	}
}
