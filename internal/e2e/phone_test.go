package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/status"
)

var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// waitDrawnPlain is waitDrawn of text drawn in colours: the client's
// bytes are read without their SGR sequences.
func (e *Env) waitDrawnPlain(log *screenLog, text string) {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(sgr.ReplaceAllString(forwardAsSpaces(log.String()), ""), text) {
		if time.Now().After(deadline) {
			out := log.String()
			e.t.Fatalf("%q not drawn on the client after 30s; last output:\n%q", text, out[max(0, len(out)-3000):])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pressOpen presses a popup's key until the popup draws text: a key
// pressed while tmux shows a message (the monitor's "quick exited") can
// reach the pane instead, and a user presses it again.
func (e *Env) pressOpen(press func(string), log *screenLog, key, text string) {
	e.t.Helper()
	press(key)
	deadline := time.Now().Add(8 * time.Second)
	for !strings.Contains(sgr.ReplaceAllString(forwardAsSpaces(log.String()), ""), text) {
		if time.Now().After(deadline) {
			press(key)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.waitDrawnPlain(log, text)
}

// On a phone's 50 x 25 terminal the keys open popups of the whole client
// in their narrow layout: the switch picker's rows without the columns
// that do not fit and without the preview, the control board with its
// verbs in the footer and ? help, and the create form, which makes the
// agent; the status bar shows its compact form. One world for the three.
func TestPopupsFitAPhone(t *testing.T) {
	e := newQuietEnv(t)
	shop := e.NewRepo("shop")
	e.MustOwt(shop, "new", "--no-agent", "Fix the login redirect")
	e.MustOwt(shop, "new", "--tool", "claude", "--name", "quick", "Finish quickly\n!exit 3")
	e.Eventually(15*time.Second, "the agent exited", func() bool { return e.Find(shop, "quick").Status == "exited" })
	// The bar's segment, and one an earlier owt left, brought to this one.
	e.Tmux("set-option", "-g", "status-right", "#{owt_status}")
	e.Tmux("set-option", "-g", "status-left", "["+status.PastStatusFormats[0]+"]")
	e.MustOwt(shop, "tmux", "init")
	require.Equal(t, "["+status.StatusFormat+"]", e.Tmux("show-option", "-gv", "status-left"))
	client, term, screen := e.attachSized("harness", 50, 25)
	press := func(keys string) { _, _ = term.Write([]byte(keys)) }

	e.waitDrawn(screen, "✕1") // the compact bar: counts only
	require.Contains(t, e.Tmux("show-options", "-gqv", status.OptStatusLine), "✕ 1", "the full form is kept beside it")

	// Alt+s: the whole width (an 80% popup, 40 columns, would cut the
	// header), a row per agent with its name and age, no preview.
	e.pressOpen(press, screen, "\x1bs", "▲ needs you  ● working  ○ idle  ✕ exited")
	e.waitDrawn(screen, "2/2")
	e.waitDrawn(screen, "login-redirect  ")
	require.NotContains(t, screen.String(), "── changes ──", "no room for the preview on a phone")
	// Typed and Enter at once, in one write: the picker filters with each
	// key, so the Enter takes the match, never the row under the cursor of
	// the unfiltered list (the picker it replaced went to the wrong agent).
	press("login\r")
	login := e.Find(shop, "login-redirect")
	e.Eventually(15*time.Second, "client on login-redirect", func() bool { return e.ClientSession(client) == login.Session })
	e.waitNoProcess(" switch")

	// Alt+o: the board, the verbs in the footer, every key in ? help.
	screen.Reset()
	e.pressOpen(press, screen, "\x1bo", "owt control — shop")
	e.waitDrawn(screen, "? help")
	press("?")
	e.waitDrawn(screen, "q / Esc   close")
	press(" ")
	press("q")
	e.waitNoProcess(" control")

	// Alt+c: the form, field after field, and the agent it makes.
	screen.Reset()
	e.pressOpen(press, screen, "\x1bc", "What should the agent do?")
	press("Add a cart page")
	press("\t")
	e.waitDrawnPlain(screen, "┃ Tool")
	press("G\r") // the last choice: a shell, no agent
	e.waitDrawnPlain(screen, "┃ Template")
	press("\r")
	e.waitDrawnPlain(screen, "┃ Base branch")
	press("\r")
	e.waitDrawnPlain(screen, "┃ Plan mode?")
	press("\r")
	// The client was on login-redirect's session: it moves to the new one.
	e.Eventually(15*time.Second, "client on the new session", func() bool {
		return e.ClientSession(client) == "shop/add-cart-page"
	})
	cart := e.Find(shop, "add-cart-page")
	require.Equal(t, "Add a cart page", cart.Task)
	require.Equal(t, cart.Session, e.ClientSession(client))
}
