package send

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// What in an input box is owt's own (and may be erased) and what is not.
func TestOwnText(t *testing.T) {
	for _, tc := range []struct {
		held string
		last typed
		task string
		own  bool
	}{
		{"status?", typed{Text: "status?"}, "", true},
		{"status?", typed{Text: "status?", Submitted: true}, "", true},
		{"[from b] status?", typed{Text: "[from b] status?"}, "", true},
		// Wrapped and indented on screen, the same text.
		{"Fix the login\nredirect", typed{Text: "Fix the login redirect"}, "", true},
		// Claude puts the stopped task back: owt gave it.
		{"say hi", typed{}, "say hi", true},
		// A long enough start of owt's text, when its erasing was cut off.
		{"run the test", typed{Text: "run the tests now", Erasing: true}, "", true},
		{"run the test", typed{Text: "run the tests now"}, "", false},
		// The user's draft, or a short start that could be anyone's.
		{"my draft", typed{Text: "status?"}, "Task", false},
		{"s", typed{Text: "status?"}, "", false},
		{"status?run the tests", typed{Text: "run the tests"}, "", false},
		{"anything", typed{}, "", false},
		// A draft that starts like a text the agent took, or like the
		// task, is the user's: owt's would be there whole.
		{"run the test", typed{Text: "run the tests now", Submitted: true}, "", false},
		{"Fix the login", typed{}, "Fix the login page", false},
		// Claude's token for a paste: owt's own number, not the user's.
		{"[Pasted text #1 +12 lines]", typed{Text: "a\nb", Shown: "[Pasted text #1 +12 lines]"}, "", true},
		{"[Pasted text #2 +3 lines]", typed{Text: "a\nb", Shown: "[Pasted text #1 +12 lines]"}, "", false},
		{"[Pasted text #2 +3 lines]", typed{Text: "a\nb"}, "", false},
		{"[Pasted text #1 +12 lines]", typed{Text: "a b"}, "", false},
	} {
		if got := ownText(tc.held, tc.last, tc.task); got != tc.own {
			t.Errorf("ownText(%q, last %+v, task %q) = %v", tc.held, tc.last, tc.task, got)
		}
	}
}

// When erasing owt's own leftover does not take, nothing is typed: the
// send fails as ErrNotReady, so the courier holds the messages rather
// than settling them undeliverable, and it claims no draft of the
// user's (ErrInputHeld).
func TestAStuckLeftoverKeepsTheMessages(t *testing.T) {
	w := newWorld(t)
	ws := w.Workspace()
	// The stand-in agent draws Claude Code's idle screen with owt's
	// earlier text still in its box, and takes every key without drawing
	// it: Backspace never clears the box. It keeps the keys it got.
	screen := filepath.Join("..", "..", "testdata", "screens", "claude", "idle-interrupted-80x24-v2.1.330.txt")
	abs, err := filepath.Abs(screen)
	require.NoError(t, err)
	keys := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.WriteFile(ws.Self, []byte("#!/bin/sh\n[ \"$1\" = monitor ] && exit 0\nstty -echo -icanon\ncat "+abs+"\nexec cat > "+keys+"\n"), 0o755))
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "claude"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	rec, err := lifecycle.Of(ws).Create(lifecycle.CreateOptions{Task: "Do a thing", Name: "cl", Tool: "claude", NoSetup: true})
	require.NoError(t, err)
	require.NoError(t, ws.Store.Update(func(f *state.File) error {
		f.Records["cl"].Status = state.Idle
		return nil
	}))
	require.Eventually(t, func() bool {
		s, _ := w.Tmux.Capture(rec.Pane)
		return strings.Contains(s, "say hi")
	}, 10*time.Second, 50*time.Millisecond)
	// "say hi" is what owt typed last: its own leftover, to erase.
	require.NoError(t, rememberTyped(ws.Repo.Root, "cl", typed{Text: "say hi"}))

	ws.Config.Agent.SendTimeout.Duration = 2 * time.Second // each round of Backspace waits its least, 1s
	err = To(ws, rec, untrusted.From("status?"), Options{})
	require.ErrorIs(t, err, errInputStuck)
	require.ErrorIs(t, err, ErrNotReady, "the outbox would settle its messages undeliverable")
	require.NotErrorIs(t, err, ErrInputHeld, "owt's own leftover is no draft of the user's")
	got, rerr := os.ReadFile(keys)
	require.NoError(t, rerr)
	require.NotContains(t, string(got), "status?", "nothing is typed after a box owt could not clear")
	require.Contains(t, string(got), "\x7f", "owt did try to erase its leftover")
}
