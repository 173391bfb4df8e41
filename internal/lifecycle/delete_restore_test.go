package lifecycle

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/workspace/worldtest"
)

// lostClaudeAgent is a world with the claude agent b4 (a stand-in claude
// on PATH) whose session the tmux server lost: owt restore's to bring
// back.
func lostClaudeAgent(t *testing.T) (*worldtest.World, *Worktrees, *state.Record) {
	t.Helper()
	w := worldtest.New(t)
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	wt := Of(w.Workspace())
	rec, err := wt.Create(CreateOptions{Task: "Add a feature", Name: "b4", Tool: "claude", NoSetup: true})
	require.NoError(t, err)
	require.NotEmpty(t, rec.Life)
	w.Run("tmux", "kill-session", "-t", rec.SessionID)
	return w, wt, rec
}

// owt delete while owt restore brings the same agent back: the restart
// under way either finishes first, and delete ends the session it made,
// or finds the agent gone. No session of the deleted agent is left in
// its removed folder.
func TestDeleteDuringARestoreLeavesNoSessionBehind(t *testing.T) {
	w, wt, rec := lostClaudeAgent(t)

	done := make(chan struct{})
	var resumed error
	err := wt.Delete("b4", DeleteOptions{Force: true, Leaving: func() {
		// owt restore, in another process, gets to b4 now.
		go func() {
			defer close(done)
			_, resumed = wt.ResumeAgent("b4", "")
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
		}
	}})
	require.NoError(t, err)
	<-done
	if resumed == nil {
		t.Log("the restart came first")
	} else {
		require.ErrorIs(t, resumed, state.ErrUnknownName)
	}
	sessions := w.Run("tmux", "list-sessions", "-F", "#{session_name}")
	require.NotContains(t, sessions, rec.Session, "a session of the deleted agent is left")
	_, err = os.Stat(rec.Path)
	require.ErrorIs(t, err, os.ErrNotExist)
}

// A session owt made for an agent it has since deleted (it carries that
// agent's life) is ended by owt doctor --fix; a session that merely
// carries owt's options is left alone.
func TestDoctorEndsASessionOfADeletedAgent(t *testing.T) {
	w := worldtest.New(t)
	wt := Of(w.Workspace())
	rec, err := wt.Create(CreateOptions{Task: "Add a feature", Name: "b4", NoAgent: true, NoSetup: true})
	require.NoError(t, err)
	require.NotEmpty(t, rec.Life)
	require.NoError(t, wt.Delete("b4", DeleteOptions{Force: true}))
	for name, life := range map[string]string{"left-over": rec.Life, "someones": "0123456789abcdef"} {
		w.Run("tmux", "new-session", "-d", "-s", name)
		for k, v := range map[string]string{"@owt-repo": wt.Repo.Root, "@owt-name": "b4", "@owt-life": life} {
			w.Run("tmux", "set-option", "-t", name, k, v)
		}
	}
	rep, err := wt.Doctor(true)
	require.NoError(t, err)
	fixed := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Kind == SessionWithoutRecord {
			fixed[f.Name] = f.Fixed
		}
	}
	require.Equal(t, map[string]bool{"left-over": true, "someones": false}, fixed)
	sessions := w.Run("tmux", "list-sessions", "-F", "#{session_name}")
	require.NotContains(t, sessions, "left-over")
	require.Contains(t, sessions, "someones")
}
