package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// @owt-theme light: the control popup, opened with Alt+o on a real
// client, draws in the light palette — as the client's terminal receives
// it — and not in the dark one; @owt-theme dark then switches it back.
func TestPopupThemeFromTheTmuxOption(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.MustOwt(repo, "new", "--no-agent", "--name", "cart", "Add the cart")
	e.Tmux("set-environment", "-g", "-u", "NO_COLOR")
	e.Tmux("set-option", "-g", "@owt-theme", "light")
	e.MustOwt(repo, "tmux", "init")
	_, tty, screen := e.attachRecorded("harness")

	_, _ = tty.Write([]byte("\x1bo")) // Alt+o
	e.waitDrawn(screen, "(tab: this repo)")
	raw := screen.String()
	require.Contains(t, raw, "38;5;242", "the light palette's dim grey reached the terminal")
	require.NotContains(t, raw, "38;5;245", "not the dark palette's")
	_, _ = tty.Write([]byte("q"))
	e.waitNoProcess(" control")

	e.Tmux("set-option", "-g", "@owt-theme", "dark")
	screen.Reset()
	_, _ = tty.Write([]byte("\x1bo"))
	e.waitDrawn(screen, "(tab: this repo)")
	raw = screen.String()
	require.Contains(t, raw, "38;5;245", "the dark palette's dim grey")
	require.NotContains(t, raw, "38;5;242")
	_, _ = tty.Write([]byte("q"))
	e.waitNoProcess(" control")
}
