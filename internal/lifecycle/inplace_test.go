package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

// An in-place create that fails at any step leaves the user's checkout
// on the branch it was on, with no new branch, session or record; one
// that succeeds and is deleted leaves the checkout and the branch.
func TestInPlaceCreateRollsBackAndDeleteKeepsTheCheckout(t *testing.T) {
	w := newWorld(t)
	git := func(args ...string) string { return w.Run("git", append([]string{"-C", w.Repo}, args...)...) }
	git("add", "-A") // the world's .owt.toml: in place needs a clean checkout
	git("commit", "-q", "-m", "config")
	head := git("rev-parse", "HEAD")
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
			_, err := ws.Create(CreateOptions{Task: "Quick fix", NoAgent: true, NoSetup: true, InPlace: true, From: w.Repo})
			require.ErrorIs(t, err, boom)
			require.Equal(t, "main", git("branch", "--show-current"), "switched back")
			require.Equal(t, head, git("rev-parse", "HEAD"))
			require.Empty(t, git("branch", "--list", "fix/*", "feat/*"), "no orphan branch")
			require.DirExists(t, w.Repo)
			recs, err := ws.Records()
			require.NoError(t, err)
			require.Empty(t, recs)
		})
	}

	ws := worktreesOf(w)
	rec, err := ws.Create(CreateOptions{Task: "Quick fix", NoAgent: true, NoSetup: true, InPlace: true, From: w.Repo})
	require.NoError(t, err)
	require.True(t, rec.InPlace)
	require.Equal(t, w.Repo, rec.Path)
	require.Equal(t, rec.Branch, git("branch", "--show-current"))
	loss, err := ws.WhatWouldBeLost(rec)
	require.NoError(t, err)
	require.True(t, loss.Empty(), "an in-place delete removes nothing")

	// Teardown (merge, ship, cleanup) and delete: the checkout and its
	// branch stay, only the record and session go.
	require.NoError(t, ws.Teardown(rec.Name, Landing{}))
	require.DirExists(t, w.Repo)
	require.Equal(t, rec.Branch, git("branch", "--show-current"))
	recs, err := ws.Records()
	require.NoError(t, err)
	require.Empty(t, recs)
}

// A record that names the main checkout without being in place (a
// hand-edited or foreign state file) is refused by delete and teardown:
// the checkout is never removed.
func TestDeleteNeverRemovesTheMainCheckout(t *testing.T) {
	w := newWorld(t)
	ws := worktreesOf(w)
	rec, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
	require.NoError(t, err)
	require.NoError(t, ws.Store.Update(func(f *state.File) error {
		f.Records[rec.Name].Path = w.Repo
		return nil
	}))
	for _, del := range []func() error{
		func() error { return ws.Delete(rec.Name, DeleteOptions{Force: true}) },
		func() error { return ws.Teardown(rec.Name, Landing{}) },
	} {
		err := del()
		require.Error(t, err)
		require.Contains(t, err.Error(), "main checkout")
		require.DirExists(t, filepath.Join(w.Repo, ".git"))
	}
}

// An in-place create cut off half-way (its record still Creating, its
// lock free): doctor --fix forgets it and takes owt's settings out; the
// checkout and the branch it was switched to stay.
func TestDoctorFixOfAnInterruptedInPlaceCreateKeepsTheCheckout(t *testing.T) {
	w := newWorld(t)
	git := func(args ...string) string { return w.Run("git", append([]string{"-C", w.Repo}, args...)...) }
	git("add", "-A")
	git("commit", "-q", "-m", "config")
	ws := worktreesOf(w)
	rec, err := ws.Create(CreateOptions{Task: "Quick fix", NoAgent: true, NoSetup: true, InPlace: true, From: w.Repo})
	require.NoError(t, err)
	require.NoError(t, ws.Tmux.KillSession(rec.SessionID))
	require.NoError(t, ws.Store.Update(func(f *state.File) error {
		f.Records[rec.Name].Creating = true
		return nil
	}))
	rep, err := ws.Doctor(true)
	require.NoError(t, err)
	found := false
	for _, f := range rep.Findings {
		if f.Kind == InterruptedCreate && f.Name == rec.Name {
			found = true
			require.True(t, f.Fixed, f.Action)
			require.Contains(t, f.Action, "stays checked out")
		}
	}
	require.True(t, found, "%+v", rep.Findings)
	require.DirExists(t, filepath.Join(w.Repo, ".git"))
	require.Equal(t, rec.Branch, git("branch", "--show-current"))
	recs, err := ws.Records()
	require.NoError(t, err)
	require.Empty(t, recs)
}

// --base another branch that adds a file the checkout has, ignored: the
// switch would write over it, so the in-place create is refused first.
func TestInPlaceFromAnotherBaseNeverWritesOverIgnoredFiles(t *testing.T) {
	w := newWorld(t)
	git := func(args ...string) string { return w.Run("git", append([]string{"-C", w.Repo}, args...)...) }
	git("add", "-A")
	git("commit", "-q", "-m", "config")
	git("switch", "-q", "-c", "other")
	require.NoError(t, os.WriteFile(filepath.Join(w.Repo, ".env"), []byte("TEAM=1\n"), 0o644))
	git("add", "-f", ".env")
	git("commit", "-q", "-m", "other tracks .env")
	git("switch", "-q", "main")
	require.NoError(t, os.WriteFile(filepath.Join(w.Repo, ".gitignore"), []byte(".env\n"), 0o644))
	git("add", ".gitignore")
	git("commit", "-q", "--allow-empty", "-m", "ignore .env")
	require.NoError(t, os.WriteFile(filepath.Join(w.Repo, ".env"), []byte("SECRET=mine\n"), 0o644))

	ws := worktreesOf(w)
	_, err := ws.Create(CreateOptions{Task: "Quick fix", Base: "other", NoAgent: true, NoSetup: true, InPlace: true, From: w.Repo})
	require.Error(t, err)
	require.Contains(t, err.Error(), ".env")
	got, _ := os.ReadFile(filepath.Join(w.Repo, ".env"))
	require.Equal(t, "SECRET=mine\n", string(got))
	require.Equal(t, "main", git("branch", "--show-current"))
	recs, err := ws.Records()
	require.NoError(t, err)
	require.Empty(t, recs)
}
