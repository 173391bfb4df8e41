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

// WorkerOption is the window option that marks a swarm worker's window
// with what a rebuilt state file needs to know of it.
const WorkerOption = "@owt-worker"

// MarkWindow sets a user option on the window holding pane.
func (c *Client) MarkWindow(pane, name, value string) error {
	_, err := c.Run("set-option", "-w", "-q", "-t", pane, name, value)
	return err
}

// WindowMarks lists, by pane id, the value of the window option name of
// every pane whose window has it set, with the pane's session id.
func (c *Client) WindowMarks(name string) (map[string][2]string, error) {
	out, err := c.Run("list-panes", "-a", "-F", "#{pane_id}"+fieldSep+"#{session_id}"+fieldSep+"#{"+name+"}")
	if errors.Is(err, ErrNoServer) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	marks := map[string][2]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, fieldSep)
		if len(f) == 3 && f[2] != "" {
			marks[f[0]] = [2]string{f[1], f[2]}
		}
	}
	return marks, nil
}
