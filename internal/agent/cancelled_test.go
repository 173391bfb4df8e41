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

// Once the folder is trusted Gemini CLI 0.61 draws its API-key box while
// the trust dialog's words are still within the rows read above it: the
// box, drawn last and lowest, is what the user answers (a clean-clone run
// flapped waiting(API key) → waiting(trust) on this). The reverse holds
// too: a cancelled key box's words above the sign-in menu it returns to.
func TestTheLowestDialogSaysWhatAScreenWaitsFor(t *testing.T) {
	trustThenKey := []string{
		"│ Do you trust the files in this folder?",
		"│ ● 1. Trust folder (repo)",
		"│   3. Don't trust",
		"╰──────────────╯",
		"│ Enter Gemini API Key",
		"│ Please enter your Gemini API key.",
		"│ │ Paste your API key here",
		"│ (Press Enter to submit, Esc to cancel, Ctrl+C to clear stored key)",
	}
	require.Equal(t, WaitAPIKey, WaitReason(trustThenKey))

	keyThenLogin := []string{
		"│ Enter Gemini API Key",
		"│ │ Paste your API key here",
		"╰──────────────╯",
		"│   How would you like to authenticate for this project?",
		"│   ● 1. Sign in with Google",
		"│     2. Use Gemini API Key",
		"│   (Use Enter to select)",
	}
	require.Equal(t, WaitLogin, WaitReason(keyThenLogin))

	// Codex's hooks review names its hook commands, any words at all.
	hooks := []string{"  Hooks need review", "  owt hook --tool codex  # trust the folder"}
	require.Equal(t, WaitHooks, WaitReason(hooks))
}
