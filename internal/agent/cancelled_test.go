package agent

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Gemini CLI 0.61 says a stopped turn either way: "ℹ Request cancelled."
// (captured), or, from its own cancel handler (its bundle's
// interactiveCli: addItem({type: "info", text: "User cancelled the
// request."})), "ℹ User cancelled the request." (issue 32 item 12).
func TestGeminiUserCancelledIsAStoppedTurn(t *testing.T) {
	before := Marks("> say hi\n⠋ Working… (esc to cancel, 3s)\n")
	after := Marks("> say hi\nℹ User cancelled the request.\n╭────╮\n│ >  │\n╰────╯\n")
	interrupted, failure := TurnEnd(before, after)
	require.True(t, interrupted)
	require.Empty(t, failure)
	require.Equal(t, "ℹ User cancelled the request.", InterruptRow("> say hi\nℹ User cancelled the request.\n│ > │\n"))
}
