package tmux

import (
	"errors"
	"strings"
)

// Viewer is where one attached client looks: its current session and that
// session's active pane (both ids).
type Viewer struct {
	Session string
	Pane    string
}

// Viewers lists where every attached client looks, in one tmux call; none
// when no server runs.
func (c *Client) Viewers() ([]Viewer, error) {
	out, err := c.Run("list-clients", "-F", "#{session_id}"+fieldSep+"#{pane_id}")
	if errors.Is(err, ErrNoServer) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var vs []Viewer
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, fieldSep)
		if len(f) == 2 && f[0] != "" {
			vs = append(vs, Viewer{Session: f[0], Pane: f[1]})
		}
	}
	return vs, nil
}

// Watched reports whether a client looks at pane of session: the client's
// current session is session and that session's active pane is pane. A
// user there may be typing into it.
func Watched(vs []Viewer, session, pane string) bool {
	for _, v := range vs {
		if v.Pane == pane && (session == "" || v.Session == session) {
			return true
		}
	}
	return false
}
