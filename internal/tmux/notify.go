package tmux

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ClientView is an attached client and the pane it is looking at.
type ClientView struct {
	Name    string
	Pane    string // the active pane of the client's current window
	Control bool   // a control-mode client (no screen to show a message on)
}

// ClientViews lists the attached clients; none when no server runs.
func (c *Client) ClientViews() ([]ClientView, error) {
	out, err := c.Run("list-clients", "-F", strings.Join([]string{"#{client_name}", "#{pane_id}", "#{client_control_mode}"}, fieldSep))
	if err != nil {
		return nil, err
	}
	var cs []ClientView
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, fieldSep)
		if len(f) == 3 && f[0] != "" {
			cs = append(cs, ClientView{Name: f[0], Pane: f[1], Control: f[2] == "1"})
		}
	}
	return cs, nil
}

// Message shows text in the status line of each named client, in one
// tmux call, for d (0 = the display-time option; tmux < 3.2 has no -d).
// The text is shown as written: display-message expands formats, so '#'
// is doubled.
func (c *Client) Message(clients []string, text string, d time.Duration) error {
	text = strings.ReplaceAll(text, "#", "##")
	var cmds [][]string
	for _, name := range clients {
		cmd := []string{"display-message", "-c", name}
		if d > 0 {
			cmd = append(cmd, "-d", strconv.FormatInt(d.Milliseconds(), 10))
		}
		cmds = append(cmds, append(cmd, text))
	}
	if len(cmds) == 0 {
		return nil
	}
	_, err := c.RunBatch(cmds...)
	return err
}

// Bell rings the bell in a pane: a BEL written to the pane's terminal
// reaches tmux as the pane's output, so tmux flags the window and passes
// the bell on by its bell-action, as if the agent had rung it. Nothing is
// typed into the agent.
func Bell(tty string) error {
	if err := WriteTerminal(tty, []byte{'\a'}); err != nil {
		return fmt.Errorf("ring the bell: %w", err)
	}
	return nil
}

// WriteTerminal writes b to the terminal at tty in one write, without
// waiting: a terminal that cannot take it now is an error, not a stall.
func WriteTerminal(tty string, b []byte) error {
	if !strings.HasPrefix(tty, "/dev/") {
		return fmt.Errorf("not a terminal: %q", tty)
	}
	fd, err := unix.Open(tty, unix.O_WRONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", tty, err)
	}
	defer unix.Close(fd)
	n, err := unix.Write(fd, b)
	if err != nil {
		return fmt.Errorf("write to %s: %w", tty, err)
	}
	if n < len(b) {
		return fmt.Errorf("write to %s: %d of %d bytes taken", tty, n, len(b))
	}
	return nil
}

// ClientTerm is an attached client's terminal: where it is and what it
// says it is.
type ClientTerm struct {
	Name string
	// TTY is the client's own terminal (on ssh, the ssh session's).
	TTY string
	// TermName is the client's TERM; TermType what the terminal answered
	// when tmux asked which it is (tmux 3.3 and later; "" when it did not
	// answer), like "iTerm2 3.5.0" or "WezTerm 20240203".
	TermName, TermType string
	Control            bool
}

// ClientTerms lists the attached clients' terminals; none when no server
// runs.
func (c *Client) ClientTerms() ([]ClientTerm, error) {
	out, err := c.Run("list-clients", "-F", strings.Join([]string{"#{client_name}", "#{client_tty}", "#{client_termname}", "#{client_termtype}", "#{client_control_mode}"}, fieldSep))
	if err != nil {
		return nil, err
	}
	var cs []ClientTerm
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, fieldSep)
		if len(f) == 5 && f[0] != "" {
			cs = append(cs, ClientTerm{Name: f[0], TTY: f[1], TermName: f[2], TermType: f[3], Control: f[4] == "1"})
		}
	}
	return cs, nil
}
