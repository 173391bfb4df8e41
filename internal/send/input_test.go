package send

import "testing"

// What in an input box is owt's own (and may be erased) and what is not.
func TestOwnText(t *testing.T) {
	for _, tc := range []struct {
		held, last string
		pasted     bool
		task       string
		own        bool
	}{
		{"status?", "status?", false, "", true},
		{"[from b] status?", "[from b] status?", false, "", true},
		// Wrapped and indented on screen, the same text.
		{"Fix the login\nredirect", "Fix the login redirect", false, "", true},
		// Claude puts the stopped task back: owt gave it.
		{"say hi", "", false, "say hi", true},
		// A long enough start of owt's text: it landed in part.
		{"run the test", "run the tests now", false, "", true},
		// The user's draft, or a short start that could be anyone's.
		{"my draft", "status?", false, "Task", false},
		{"s", "status?", false, "", false},
		{"status?run the tests", "run the tests", false, "", false},
		{"anything", "", false, "", false},
		// Claude's token for a paste, when owt's last text was pasted.
		{"[Pasted text #1 +12 lines]", "a\nb", true, "", true},
		{"[Pasted text #1 +12 lines]", "a b", false, "", false},
	} {
		if got := ownText(tc.held, tc.last, tc.pasted, tc.task); got != tc.own {
			t.Errorf("ownText(%q, last %q, pasted %v, task %q) = %v", tc.held, tc.last, tc.pasted, tc.task, got)
		}
	}
}
