package daemon

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/adrg/xdg"
)

// Bell is the monitor's end of the bell (ring.go: where it is, what a
// ring says).
type Bell struct {
	conn *net.UnixConn
	path string
}

// ListenBell opens the bell of the server at socket. The caller holds
// the monitor lock, so a socket file already there is a dead monitor's.
func ListenBell(socket string) (*Bell, error) {
	paths := BellPaths(socket)
	if len(paths) == 0 {
		return nil, fmt.Errorf("open the monitor's bell: every place for it is a path too long for a socket (server %s, XDG_RUNTIME_DIR %s)", socket, xdg.RuntimeDir)
	}
	var errs []error
	for _, p := range paths {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			errs = append(errs, err)
			continue
		}
		if !privateDir(filepath.Dir(p)) {
			errs = append(errs, fmt.Errorf("%s: others may write to its folder", p))
			continue
		}
		_ = os.Remove(p)
		conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: p, Net: "unixgram"})
		if err != nil {
			errs = append(errs, err)
			continue
		}
		return &Bell{conn: conn, path: p}, nil
	}
	return nil, fmt.Errorf("open the monitor's bell: %w", errors.Join(errs...))
}

// Path is the bell's socket file.
func (b *Bell) Path() string { return b.path }

// Serve calls publish for every record rung for, one at a time, until
// Close. The rings waiting when it is free are taken together, each
// record published once (a storm of hooks, or a slow tmux, costs one
// publish a record, not one a ring). Rings that are not one verb and two
// fields are dropped.
func (b *Bell) Serve(publish func(repo, name string)) {
	buf := make([]byte, ringMaxLen)
	type rung struct{ repo, name string }
	for {
		var batch []rung
		seen := map[rung]bool{}
		wait := time.Time{} // the first ring is waited for
		for {
			_ = b.conn.SetReadDeadline(wait)
			n, err := b.conn.Read(buf)
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if err != nil {
				break // none waiting
			}
			// Those already there: a deadline already past would not even
			// look (Go fails such a read before trying it).
			wait = time.Now().Add(time.Millisecond)
			fields := strings.Split(string(buf[:n]), "\x00")
			if len(fields) != 3 || fields[0] != ringVerb || !filepath.IsAbs(fields[1]) || fields[2] == "" {
				continue
			}
			if r := (rung{fields[1], fields[2]}); !seen[r] {
				seen[r] = true
				batch = append(batch, r)
			}
		}
		for _, r := range batch {
			publish(r.repo, r.name)
		}
	}
}

// Close stops Serve and removes the socket file.
func (b *Bell) Close() {
	_ = os.Remove(b.path)
	_ = b.conn.Close()
}
