package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/owt-tmux/owt/internal/notes"
	"github.com/stretchr/testify/require"
)

func TestTeardownKeepsWorkOnADetachedHEAD(t *testing.T) {
	w := newWorld(t)
	ws := worktreesOf(w)
	rec, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
	require.NoError(t, err)
	w.Run("git", "-C", rec.Path, "checkout", "-q", "--detach")
	require.NoError(t, os.WriteFile(filepath.Join(rec.Path, "d.txt"), []byte("d\n"), 0o644))
	w.Run("git", "-C", rec.Path, "add", "d.txt")
	w.Run("git", "-C", rec.Path, "commit", "-q", "-m", "detached work")

	loss, err := ws.WhatWouldBeLost(rec)
	require.NoError(t, err)
	require.Equal(t, 1, loss.Detached)
	require.False(t, loss.Empty())
	require.Contains(t, loss.String(), "1 commit(s) on a detached HEAD that no branch holds")

	err = ws.Teardown(rec.Name, Landing{})
	require.ErrorContains(t, err, "1 commit(s) on a detached HEAD")
	require.DirExists(t, rec.Path)
	require.NotEmpty(t, w.Run("git", "-C", w.Repo, "branch", "--list", rec.Branch))
	require.ErrorIs(t, ws.Delete(rec.Name, DeleteOptions{}), ErrWouldLoseWork)
	require.DirExists(t, rec.Path)
}

func TestTeardownKeepsTextAddedToAnOwtNoteFile(t *testing.T) {
	w := newWorld(t)
	// A stand-in claude on PATH: the session runs the stand-in runner, the
	// tool only has to be found.
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	ws := worktreesOf(w)
	rec, err := ws.Create(CreateOptions{Task: "Add a feature", Tool: "claude", NoSetup: true})
	require.NoError(t, err)
	_, err = notes.Of(ws.Workspace).SetNote("Shared context")
	require.NoError(t, err)
	note := filepath.Join(rec.Path, "CLAUDE.local.md")
	require.FileExists(t, note)
	require.Empty(t, w.Run("git", "-C", rec.Path, "status", "--porcelain"), "owt's note is hidden from git")

	// Only owt's block: nothing to lose.
	loss, err := ws.WhatWouldBeLost(rec)
	require.NoError(t, err)
	require.True(t, loss.Empty(), loss.String())

	// The agent keeps its own memory there: git still does not show it,
	// but removing the worktree would lose it.
	f, err := os.OpenFile(note, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n# Remember: the API runs on 5432\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	loss, err = ws.WhatWouldBeLost(rec)
	require.NoError(t, err)
	require.Equal(t, []string{"CLAUDE.local.md"}, loss.DirtyFiles)
	require.ErrorContains(t, ws.Teardown(rec.Name, Landing{}), "CLAUDE.local.md")
	require.FileExists(t, note)

	// Cleared, the agent's text stays, and git sees it again.
	_, err = notes.Of(ws.Workspace).ClearNote()
	require.NoError(t, err)
	data, err := os.ReadFile(note)
	require.NoError(t, err)
	require.Equal(t, "\n# Remember: the API runs on 5432\n", string(data))
	require.Equal(t, "?? CLAUDE.local.md", w.Run("git", "-C", rec.Path, "status", "--porcelain"))
}

func TestCreateRollbackKeepsLinesOthersAddedToInfoExclude(t *testing.T) {
	w := newWorld(t)
	exclude := filepath.Join(w.Repo, ".git", "info", "exclude")
	before, _ := os.ReadFile(exclude)
	ws := worktreesOf(w)
	boom := errors.New("injected failure")
	testHookAfterStep = func(s string) error {
		if s != "files" {
			return nil
		}
		// The worktree's link is excluded by now; another owt process
		// appends its own line before this create fails.
		data, _ := os.ReadFile(exclude)
		require.Contains(t, string(data), "/cache\n")
		f, err := os.OpenFile(exclude, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString("/from-another-owt\n")
		require.NoError(t, err)
		require.NoError(t, f.Close())
		return boom
	}
	defer func() { testHookAfterStep = nil }()
	_, err := ws.Create(CreateOptions{Task: "Add a feature", NoAgent: true, NoSetup: true})
	require.ErrorIs(t, err, boom)

	after, err := os.ReadFile(exclude)
	require.NoError(t, err)
	require.Equal(t, string(before)+"# owt\n/from-another-owt\n", string(after),
		"the rollback removed its own line and nothing else")
}
