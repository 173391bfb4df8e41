package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// What the input box holds, read off real screens (and the fake's).
func TestInputTextOnRealScreens(t *testing.T) {
	for _, tc := range []struct {
		tool, file, want string
	}{
		// Claude Code 2.1.330: an empty box is "❯" and a no-break space.
		{"claude", "idle-interrupted-what-instead-v2.1.330.txt", ""},
		{"claude", "idle-done-after-interrupt-v2.1.330.txt", ""},
		// Esc put the interrupted task back in the box.
		{"claude", "idle-interrupted-80x24-v2.1.330.txt", "say hi"},
		{"claude", "working-typeahead.txt", "and then update the README"},
		{"claude", "idle-done.txt", ""},
		{"codex", "idle-done-v0.169.0.txt", ""},
		{"codex", "idle-done.txt", ""}, // an older build's example prompt
		{"codex", "working-v0.169.0.txt", ""},
		{"codex", "idle-interrupted-80x24-v0.169.0.txt", ""},
		{"codex", "idle-interrupted.txt", ""},
		{"gemini", "idle-fresh-v0.61.0.txt", ""},
		{"gemini", "idle-done.txt", ""},
	} {
		data, err := os.ReadFile(filepath.Join(corpus, tc.tool, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		got, ok := classifierFor(t, tc.tool).InputText(string(data))
		if !ok || got != tc.want {
			t.Errorf("%s/%s: InputText = %q, %v; want %q", tc.tool, tc.file, got, ok, tc.want)
		}
	}
}

// Screens whose box owt cannot see: nothing is known, so nothing is
// erased or refused. A tool that hides its box while it works shows the
// prompt it took, above its spinner: that is transcript, not input.
func TestInputTextUnknownWithoutABox(t *testing.T) {
	for _, tc := range []struct{ tool, file string }{
		{"aider", "working.txt"},
		{"amp", "working.txt"},
		{"claude", "waiting-bash.txt"},
		{"claude", "waiting-trust-folder-v2.1.330.txt"},
		{"gemini", "waiting-shell.txt"},
		{"opencode", "idle-fresh-v1.18.33.txt"},
	} {
		data, err := os.ReadFile(filepath.Join(corpus, tc.tool, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := classifierFor(t, tc.tool).InputText(string(data)); ok {
			t.Errorf("%s/%s: InputText = %q, true; want unknown", tc.tool, tc.file, got)
		}
	}
}

func TestInputTextReadsEveryRowOfTheBox(t *testing.T) {
	cl := classifierFor(t, "claude")
	screen := "● done\n\n╭────────────╮\n│ > first line │\n│   second   │\n╰────────────╯\n  ? for shortcuts\n"
	if got, ok := cl.InputText(screen); !ok || got != "first line\nsecond" {
		t.Errorf("InputText = %q, %v", got, ok)
	}
	// The box's bottom border joined with the footer by the capture (its
	// row left marked wrapped by a line written over the screen): the
	// footer is no text in the box.
	joined := "● done\n\n╭────────────╮\n│ >%s│\n╰────────────╯  ? for shortcuts      \n"
	for box, want := range map[string]string{"          ": "", " a draft  ": "a draft"} {
		if got, ok := cl.InputText(fmt.Sprintf(joined, box)); !ok || got != want {
			t.Errorf("joined footer, box %q: InputText = %q, %v; want %q", box, got, ok, want)
		}
	}
	// A draft's line that starts with a short rule is the draft's.
	ruled := "● done\n\n────────────\n❯ first\n  ── second\n────────────\n  ? for shortcuts\n"
	if got, ok := cl.InputText(ruled); !ok || got != "first\n── second" {
		t.Errorf("a line starting with a rule: InputText = %q, %v", got, ok)
	}
	// Claude Code 2.1.330's dim hint after a failed prompt is no text
	// (waiting-prompt-failed-not-logged-in-v2.1.330.txt, its box).
	hint := "❯ say hi\n  ⎿  Not logged in · Please run /login\n\n────────\n❯\u00a0Once fixed, resend your message\n────────\n  ⏵⏵ auto mode on (shift+tab to cycle)\n"
	if got, ok := cl.InputText(hint); !ok || got != "" {
		t.Errorf("hint: InputText = %q, %v", got, ok)
	}
	// A dialog on screen: no input row to read.
	if _, ok := cl.InputText("Do you want to proceed?\n❯ 1. Yes\n  2. No\n"); ok {
		t.Error("a menu was read as the input box")
	}
}

// A box drawn for a moment without its prompt row (the fake claude after
// a client of another size left): the lowest prompt row is the
// transcript's echo of the task, with a box below it. That is not the
// input: nothing is known, so a send is not refused for the task's text.
func TestInputTextIsNotATranscriptRowAboveABox(t *testing.T) {
	box := "╭──────────────────────────────╮\n│                              │\n╰──────────────────────────────╯\n"
	screen := box + "\n> Edit e\n  !write e.txt agent's e\n● Write(e.txt)\n  ⎿  Wrote 1 lines to e.txt\n● Done: Edit e\n\n" +
		"╭──────────────────────────────╮\n╰──────────────────────────────╯\n"
	if got, ok := classifierFor(t, "claude").InputText(screen); ok {
		t.Errorf("InputText = %q, true; want unknown", got)
	}
}

// The same after tmux reflowed the pane and a capture joined the box's
// rows into one (held-screen of TestAHeldConflictMessageIsWithdrawnWhenTheConflictGoes):
// the box is below, unreadable, so nothing is known about it.
func TestInputTextIsNotATranscriptRowAboveAJoinedBox(t *testing.T) {
	screen := "> Edit e\n  !write e.txt agent's e      !commit agent e\n● Write(e.txt)\n● Done: Edit e\n\n" +
		"╭──────────╮│ >          │\n╰──────────╯  ? for shortcuts\n"
	if got, ok := classifierFor(t, "claude").InputText(screen); ok {
		t.Errorf("InputText = %q, true; want unknown", got)
	}
	// Claude Code 2.1.330's box has rules, no sides.
	screen = "> Edit e\n● Done: Edit e\n\n──────────❯ \u00a0──────────\n  ? for shortcuts\n"
	if got, ok := classifierFor(t, "claude").InputText(screen); ok {
		t.Errorf("InputText = %q, true; want unknown", got)
	}
}
