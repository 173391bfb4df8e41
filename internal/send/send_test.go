package send

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

func classifierOf(t *testing.T, tool string) *agent.Classifier {
	t.Helper()
	for _, p := range agent.Builtins() {
		if p.Name == tool {
			cl, err := agent.NewClassifier(p)
			if err != nil {
				t.Fatal(err)
			}
			return cl
		}
	}
	t.Fatalf("no builtin profile %s", tool)
	return nil
}

// A message that quotes a dialog's words sits in the input box; the screen
// may read as waiting, but the row that says so is the typed text.
func TestMarkerTypedTellsTypedTextFromADialog(t *testing.T) {
	text := "CI failed:\nPress enter to continue\nfix it"
	if !markerTyped("some\n│ > Press enter to continue", text) {
		t.Error("the typed row was taken for a dialog")
	}
	if markerTyped("Allow command?\n› 1. Yes, proceed\n  Press enter to confirm or esc to cancel", text) {
		t.Error("a dialog's own row was taken for typed text")
	}
	if markerTyped("│ >   ", text) {
		t.Error("an empty row matched")
	}
}

// The real check on real screens: a codex permission dialog that came up
// is one, a message quoting "(y/n)" typed into codex's input is not.
func TestMarkerTypedOnCodexScreens(t *testing.T) {
	cl := classifierOf(t, "codex")
	dialog := "• Working\n\nAllow command?\n  $ rm -rf x\n› 1. Yes, proceed\n  2. No\n  Press enter to confirm or esc to cancel\n"
	if cl.Classify(dialog) != agent.ClassWaiting {
		t.Fatalf("the dialog does not read as waiting: %q", cl.Classify(dialog))
	}
	if markerTyped(cl.WaitingBlock(dialog), "abc") {
		t.Error("the dialog was taken for typed text")
	}
}

// owt's own messages (the outbox courier sends with OnlyIdle) never go
// into a prompt on screen, though the record says idle: nothing typed,
// ErrNotReady, so the courier keeps them for the next idle turn.
func TestOwtsMessageWaitsForAPromptOnScreenTheRecordMissed(t *testing.T) {
	w := newWorld(t)
	ws := w.Workspace()
	// The stand-in agent draws a codex permission dialog and holds it.
	dialog := filepath.Join(t.TempDir(), "dialog")
	require.NoError(t, os.WriteFile(dialog, []byte("Allow command?\n  $ rm -rf build\n› 1. Yes, proceed\n  2. No\n  Press enter to confirm or esc to cancel\n"), 0o644))
	require.NoError(t, os.WriteFile(ws.Self, []byte("#!/bin/sh\n[ \"$1\" = monitor ] && exit 0\nstty -echo\ncat "+dialog+"\nexec sleep 600\n"), 0o755))
	// A codex on PATH (never run: the stand-in is owt's runner).
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "codex"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	rec, err := lifecycle.Of(ws).Create(lifecycle.CreateOptions{Task: "Do a thing", Name: "cx", Tool: "codex", NoSetup: true})
	require.NoError(t, err)
	require.NoError(t, ws.Store.Update(func(f *state.File) error {
		f.Records["cx"].Status = state.Idle
		return nil
	}))
	require.Eventually(t, func() bool {
		screen, _ := w.Tmux.Capture(rec.Pane)
		return strings.Contains(screen, "Press enter to confirm")
	}, 10*time.Second, 50*time.Millisecond)
	before, err := w.Tmux.Capture(rec.Pane)
	require.NoError(t, err)

	err = To(ws, rec, untrusted.From("abc"), Options{OnlyIdle: true})
	require.ErrorIs(t, err, ErrNotReady)
	require.Contains(t, err.Error(), "its screen shows it waiting now")
	after, err := w.Tmux.Capture(rec.Pane)
	require.NoError(t, err)
	require.Equal(t, before, after, "nothing typed")
}
