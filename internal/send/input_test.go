package send

import (
	"errors"
	"testing"
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

// When erasing owt's own leftover did not take, nothing was typed: the
// courier must hold the messages (ErrNotReady), not settle them as
// undeliverable, and no draft of the user's is claimed (ErrInputHeld).
func TestAStuckLeftoverKeepsTheMessages(t *testing.T) {
	if !errors.Is(errInputStuck, ErrNotReady) {
		t.Fatal("errInputStuck is not ErrNotReady: the outbox would drop its messages")
	}
	if errors.Is(errInputStuck, ErrInputHeld) {
		t.Fatal("errInputStuck says the box holds the user's text")
	}
}
