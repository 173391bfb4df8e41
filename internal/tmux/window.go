package tmux

import (
	"errors"
	"fmt"
	"strings"
)

// NewWindow is a window to add to a session: a swarm worker's.
type NewWindow struct {
	Session string // the session's id ($N)
	Name    string // the window's name (its automatic-rename turned off)
	Dir     string
	Env     map[string]string // the window's own environment (-e), over the session's
	Argv    []string          // at least two elements: never a shell string
}

// NewWindow adds a window to a session, in the background (-d), and
// returns the id of its pane.
func (c *Client) NewWindow(nw NewWindow) (string, error) {
	if !strings.HasPrefix(nw.Session, "$") {
		return "", fmt.Errorf("new window in %q: not a session id", nw.Session)
	}
	if len(nw.Argv) < 2 {
		return "", fmt.Errorf("tmux new-window: a command needs at least two argv elements")
	}
	// "$N:" is a window index to be chosen in that session; formats are
	// expanded in -n and -c, so '#' goes in as "##".
	args := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", nw.Session + ":", "-c", FormatLiteral(nw.Dir)}
	if nw.Name != "" {
		args = append(args, "-n", FormatLiteral(nw.Name))
	}
	for _, k := range sortedKeys(nw.Env) {
		args = append(args, "-e", k+"="+nw.Env[k])
	}
	args = append(append(args, "--"), nw.Argv...)
	out, err := c.Run(args...)
	if err != nil {
		return "", err
	}
	pane := strings.TrimSpace(out)
	if !strings.HasPrefix(pane, "%") {
		return "", fmt.Errorf("tmux new-window: unexpected output %q", out)
	}
	return pane, nil
}

// KillWindow kills the window holding the pane with id pane; a pane that
// is gone already is no error.
func (c *Client) KillWindow(pane string) error {
	if !strings.HasPrefix(pane, "%") {
		return fmt.Errorf("kill window of %q: not a pane id", pane)
	}
	_, err := c.Run("kill-window", "-t", pane)
	if err != nil && (errors.Is(err, ErrNoServer) || strings.Contains(err.Error(), "can't find")) {
		return nil
	}
	return err
}

// CheckPaneIn reports an error unless the pane with id pane is in the
// session with id session. It lists the session's panes: display-message
// falls back to another pane when its target is gone.
func (c *Client) CheckPaneIn(pane, session string) error {
	out, err := c.Run("list-panes", "-s", "-t", session, "-F", "#{pane_id}")
	if err != nil {
		return err
	}
	for _, p := range strings.Fields(out) {
		if p == pane {
			return nil
		}
	}
	return fmt.Errorf("pane %s is not in session %s", pane, session)
}
