package tmux

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ServerSocket is the socket of the tmux server c talks to, the way tmux
// finds it: -S, else $TMUX, else the default socket (NamedSocket
// "default"). Symlinks are resolved so one server has one name.
func (c *Client) ServerSocket() string {
	p := c.Socket
	if p == "" {
		if t := os.Getenv("TMUX"); t != "" {
			p, _, _ = strings.Cut(t, ",")
		}
	}
	if p == "" {
		p = NamedSocket("default")
	}
	return CanonicalSocket(p)
}

// NamedSocket is where tmux -L NAME puts its socket:
// $TMUX_TMPDIR (or /tmp)/tmux-UID/NAME.
func NamedSocket(name string) string {
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	return filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), name)
}

// CanonicalSocket is the one name of a socket path: absolute, symlinks
// resolved (in its directory when the socket is not there yet).
func CanonicalSocket(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}
