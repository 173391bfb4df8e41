package pane

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// The agent's last screen comes back as tmux kept it, colours and all,
// without tmux's notice and the blank rows under the text.
func TestTheLastScreenIsShownAgainWithoutTmuxsNotice(t *testing.T) {
	var out bytes.Buffer
	showAgain(&out, "\x1b[1mbye\x1b[0m\nResume with: claude --resume 7\n\n\n\x1b[7mPane is dead (status 0, Mon Nov 30 11:00:00 2026)\x1b[0m\n\n")
	require.Equal(t, "\x1b[H\x1b[2J\x1b[1mbye\x1b[0m\r\nResume with: claude --resume 7\x1b[0m\r\n", out.String())

	out.Reset()
	showAgain(&out, "\n\nPane is dead (signal 9, Mon Nov 30 11:00:00 2026)")
	require.Empty(t, out.String(), "nothing to show")
}

func TestExitWordsReadThePlainScreen(t *testing.T) {
	screen := plainText("\x1b[31mError: \x1b[0mNo conversation found with session ID: 42\x1b]8;;http://x\x07link\x1b]8;;\x07\n")
	require.Equal(t, "Error: No conversation found with session ID: 42link", exitWords(screen))
}
