package e2e

import (
	"strings"
	"testing"
	"time"

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
	// The popup opens on a pane in a repo (its header then offers tab),
	// one of the world's own, not the folder go test runs in.
	e.Tmux("new-window", "-t", "harness", "-c", e.NewRepo("other"))
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

// auto: the popup asks the terminal for its background (OSC 11), which
// tmux answers from the window's style: a white background gets the
// light palette, a black one the dark; under a popup on a real client as
// in a pane.
func TestPopupThemeFollowsTheBackground(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.MustOwt(repo, "new", "--no-agent", "--name", "cart", "Add the cart")
	e.Tmux("set-environment", "-g", "-u", "NO_COLOR")
	e.Tmux("set-environment", "-g", "-u", "COLORFGBG")
	argv := []string{"env", "-u", "NO_COLOR", "-u", "COLORFGBG", "TERM=xterm-256color", owtBin, "popup", "control"}
	for bg, want := range map[string][2]string{"#ffffff": {"38;5;242", "38;5;245"}, "#000000": {"38;5;245", "38;5;242"}} {
		e.Tmux("set-option", "-g", "window-style", "bg="+bg)
		p := e.pane(repo, argv...)
		e.Eventually(10*time.Second, "the board is drawn on "+bg, func() bool {
			return strings.Contains(e.Capture(p), "q close")
		})
		raw, _ := e.TryTmux("capture-pane", "-p", "-e", "-t", p)
		require.Contains(t, raw, want[0], "background %s", bg)
		require.NotContains(t, raw, want[1], "background %s", bg)
		e.keys(p, "q")
		e.waitClosed(p)
	}

	// --theme names the palette whatever the background.
	e.Tmux("set-option", "-g", "window-style", "bg=#000000")
	p := e.pane(repo, append(argv, "--theme", "light")...)
	e.Eventually(10*time.Second, "the board is drawn", func() bool { return strings.Contains(e.Capture(p), "q close") })
	raw, _ := e.TryTmux("capture-pane", "-p", "-e", "-t", p)
	require.Contains(t, raw, "38;5;242")
	require.NotContains(t, raw, "38;5;245")
	e.keys(p, "q")
	e.waitClosed(p)
}

func TestPopupUnknownThemeIsBadUsage(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	r := e.Owt(repo, "popup", "control", "--theme", "purple")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "unknown theme \"purple\"")
}
