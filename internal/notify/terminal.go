package notify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/tmux"
)

func init() { register("terminal", terminalRoute) }

// The terminal channel writes a notice escape sequence to the terminal
// of every client attached to the tmux server, so the user's own
// terminal shows it on their own desktop, even when tmux runs on a
// machine they reach over ssh.
//
// It writes to each client's tty (#{client_tty}) directly rather than
// through tmux's passthrough (ESC P tmux; … ESC \ written into a pane):
// passthrough needs allow-passthrough on (tmux 3.3 and later) in the
// pane it comes from and reaches only the clients showing that pane,
// where the client's tty is every client, on any tmux, with no option
// set. A client's tty is the user's own, so owt may write to it as it
// rings the bell in a pane. The sequence goes in one write(2) of a few
// hundred bytes at most, which a terminal takes whole; tmux writes to the
// same terminal, so in rare cases it could land between two of tmux's
// own writes of one sequence (a redraw), and the next redraw mends that.
type terminalChannel struct {
	osc  string // "auto", "9", "777" or "99"
	tmux *tmux.Client
}

func terminalRoute(cfg config.Notify, deps Deps) (Route, bool) {
	t := cfg.Terminal
	if t.OSC == "off" || deps.Tmux == nil {
		return Route{}, false
	}
	osc := t.OSC
	if osc == "" {
		osc = "auto"
	}
	return Route{Channel: terminalChannel{osc: osc, tmux: deps.Tmux}, On: on(t.On, cfg), Timeout: 5 * time.Second}, true
}

func (terminalChannel) Name() string { return "terminal" }

// ErrNoTerminal: no attached client's terminal is known to show notices
// (osc = "auto"), or no client is attached.
// It is no failure: the Dispatcher logs nothing of it.
var ErrNoTerminal = fmt.Errorf("%w: no attached client's terminal is known to show notices (set [notify.terminal] osc to \"9\" or \"777\" to send them anyway)", ErrSkipped)

func (t terminalChannel) Send(_ context.Context, n Notice) error {
	clients, err := t.tmux.ClientTerms()
	if errors.Is(err, tmux.ErrNoServer) {
		return fmt.Errorf("%w: no tmux server runs, so no client to tell", ErrSkipped)
	}
	if err != nil {
		return fmt.Errorf("list the clients: %w", err)
	}
	sent := 0
	var errs []error
	for _, c := range clients {
		if c.Control {
			continue
		}
		osc := t.osc
		if osc == "auto" {
			if osc = TerminalOSC(c.TermName, c.TermType); osc == "" {
				continue
			}
		}
		if err := tmux.WriteTerminal(c.TTY, OSCSequence(osc, n.Text)); err != nil {
			errs = append(errs, fmt.Errorf("client %s: %w", c.Name, err))
			continue
		}
		sent++
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if sent == 0 {
		return Permanent(ErrNoTerminal)
	}
	return nil
}

// terminals are the terminals known to show a notice sequence, how to
// know them by the client's TERM or by the name they answer tmux with
// (#{client_termtype}), and the sequence each shows. The notifications
// guide has the same table.
var terminals = []struct {
	name      string
	termNames []string // TERM values (exact)
	typeWord  string   // what #{client_termtype} starts with, lower case
	osc       string
}{
	{"iTerm2", nil, "iterm2", "9"},
	{"WezTerm", []string{"wezterm"}, "wezterm", "9"},
	{"Ghostty", []string{"xterm-ghostty", "ghostty"}, "ghostty", "9"},
	{"kitty", []string{"xterm-kitty"}, "kitty", "99"},
	{"foot", []string{"foot", "foot-extra"}, "foot", "777"},
	{"rxvt-unicode (its notify extension)", []string{"rxvt-unicode", "rxvt-unicode-256color"}, "", "777"},
}

// TerminalOSC is the notice sequence a client's terminal is known to
// show ("9", "777", "99"), "" when it is not known to show any.
func TerminalOSC(termName, termType string) string {
	tt := strings.ToLower(strings.TrimSpace(termType))
	for _, k := range terminals {
		if k.typeWord != "" && strings.HasPrefix(tt, k.typeWord) {
			return k.osc
		}
	}
	for _, k := range terminals {
		for _, n := range k.termNames {
			if termName == n {
				return k.osc
			}
		}
	}
	return ""
}

// oscMax bounds the text of a notice sequence, in bytes.
const oscMax = 240

// OSCSequence is text as the notice sequence osc: OSC 9 (ESC ] 9 ; text
// BEL), OSC 777 (ESC ] 777 ; notify ; owt ; body BEL) or kitty's OSC 99
// (ESC ] 99 ; ; text ESC \). The text loses every escape sequence and
// control character (BEL or ESC \ would end the sequence early and the
// rest would drive the terminal) and is cut to oscMax bytes.
func OSCSequence(osc, text string) []byte {
	text = plainLine(text, oscMax)
	switch osc {
	case "777":
		// The title is owt's; the body is the rest (a ';' in it is the
		// body's: the fields before it are counted).
		return []byte("\x1b]777;notify;owt;" + strings.TrimPrefix(text, "owt: ") + "\a")
	case "99":
		return []byte("\x1b]99;;" + text + "\x1b\\")
	}
	return []byte("\x1b]9;" + text + "\a")
}
