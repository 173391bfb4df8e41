package tmux

import (
	"fmt"
	"strings"
)

// Here is where the user is: the client owt was started from (a pane or a
// popup over it), its session and its active pane.
type Here struct {
	Client      string // client name (its tty), "" when no client is attached
	SessionID   string
	SessionName string
	PaneID      string
	PanePath    string
}

// Here asks tmux for the current client, session and pane. From a pane,
// tmux answers for that pane; from a popup, for the client that opened it
// and the pane under it.
func (c *Client) Here() (Here, error) {
	out, err := c.Run("display-message", "-p", strings.Join([]string{
		"#{client_name}", "#{session_id}", "#{session_name}", "#{pane_id}", "#{pane_current_path}",
	}, fieldSep))
	if err != nil {
		return Here{}, err
	}
	f := strings.Split(out, fieldSep)
	if len(f) != 5 {
		return Here{}, fmt.Errorf("tmux display-message: unexpected output %q", out)
	}
	return Here{Client: f[0], SessionID: f[1], SessionName: f[2], PaneID: f[3], PanePath: f[4]}, nil
}

// SwitchClientOf moves client ("" = tmux's current client) to a session.
func (c *Client) SwitchClientOf(client, target string) error {
	args := []string{"switch-client"}
	if client != "" {
		args = append(args, "-c", client)
	}
	_, err := c.Run(append(args, "-t", target)...)
	return err
}

// Values expands several formats in one call, in the global context (no
// target), and returns their values in order. User options read this way
// (#{@name}) come back unquoted, which show-options does not promise.
func (c *Client) Values(formats ...string) ([]string, error) {
	out, err := c.Run("display-message", "-p", strings.Join(formats, fieldSep))
	if err != nil {
		return nil, err
	}
	vals := strings.Split(out, fieldSep)
	if len(vals) != len(formats) {
		return nil, fmt.Errorf("tmux display-message: expected %d values, got %q", len(formats), out)
	}
	return vals, nil
}
