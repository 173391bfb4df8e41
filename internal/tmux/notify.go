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
	if !strings.HasPrefix(tty, "/dev/") {
		return fmt.Errorf("not a terminal: %q", tty)
	}
	fd, err := unix.Open(tty, unix.O_WRONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", tty, err)
	}
	defer unix.Close(fd)
	if _, err := unix.Write(fd, []byte{'\a'}); err != nil {
		return fmt.Errorf("ring the bell on %s: %w", tty, err)
	}
	return nil
}
