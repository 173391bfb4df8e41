package agent

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The numbered choices of a dialog are read whatever frames and marks
// the tool draws around them; a dialog without a numbered list has none.
func TestChoices(t *testing.T) {
	claude := "Bash command\n\n  rm -rf build\n\nDo you want to proceed?\n❯ 1. Yes\n  2. Yes, and don't ask again this session\n  3. No, and tell Claude what to do differently (esc)\n"
	require.Equal(t, []Choice{{"1", "Yes"}, {"2", "Yes, and don't ask again this session"}, {"3", "No, and tell Claude what to do differently (esc)"}}, Choices(claude))
	boxed := "│ ?  Shell                 │\n│ ● 1. Yes, allow once      │\n│   2. Yes, allow always    │\n│   3. No, suggest changes  │"
	require.Equal(t, []Choice{{"1", "Yes, allow once"}, {"2", "Yes, allow always"}, {"3", "No, suggest changes"}}, Choices(boxed))
	// Numbered lines of the command shown above the choices do not count:
	// the dialog's own list is the last that starts at 1.
	steps := "1. build it\n2. test it\n\nAllow?\n› 1. Yes\n  2. No"
	require.Equal(t, []Choice{{"1", "Yes"}, {"2", "No"}}, Choices(steps))
	require.Nil(t, Choices("Proceed? (y/n)"))
	require.Nil(t, Choices(""))
}
