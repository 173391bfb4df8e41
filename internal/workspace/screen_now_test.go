package workspace

import (
	"testing"

	"github.com/owt-tmux/owt/internal/agent"
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
