package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/owt-tmux/owt/internal/xdgdir"
)

// The monitor's bell is a unix datagram socket where "owt hook" asks the
// running monitor to publish a record it just changed, instead of starting
// an "owt _publish" process: starting a process is most of what a hook
// costs its agent, and the monitor is already there, holding a tmux client.
//
// A ring is one datagram, "publish\x00REPO\x00NAME", sent without waiting:
// a full queue, a missing or dead monitor (no socket, or a socket file no
// one reads) fails at once, and the hook starts "owt _publish" as before.
// The socket lives beside the monitor's lock, in the directory tmux made
// for its socket, else in owt's runtime dir: the first of bellPaths short
// enough for a socket address (108 bytes) whose directory is the user's
// own and closed to others (a directory anyone can write to, such as
// the /tmp of a tmux -S /tmp/x, could hold a stranger's socket under
// the name a hook rings: it would take the rings, and no status would
// reach tmux).

const bellVerb = "publish"

// maxBell bounds a datagram: two paths and a verb.
const maxBell = 3 * 4096

// bellPaths are where the bell of the server at socket may be, in the
// order the monitor tries to bind them and a hook tries to ring them.
func bellPaths(socket string) []string {
	sum := sha256.Sum256([]byte(socket))
	name := "monitor-" + hex.EncodeToString(sum[:])[:16] + ".sock"
	candidates := []string{
		socket + ".owt-monitor.sock",
		filepath.Join(xdgdir.RuntimeDir(), "owt", name),
	}
	var out []string
	for _, p := range candidates {
		if len(p) < len(unix.RawSockaddrUnix{}.Path) {
			out = append(out, p)
		}
	}
	return out
}

// private reports whether dir is a directory (not a link) of this user
// that no one else may write to.
func private(dir string) bool {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Getuid() && st.Mode&0o022 == 0
}

// Bell is the monitor's end of the bell.
type Bell struct {
	conn *net.UnixConn
	path string
}

// ListenBell opens the bell of the server at socket. The caller holds
// the monitor lock, so a socket file already there is a dead monitor's.
func ListenBell(socket string) (*Bell, error) {
	var errs []error
	for _, p := range bellPaths(socket) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			errs = append(errs, err)
			continue
		}
		if !private(filepath.Dir(p)) {
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
	buf := make([]byte, maxBell)
	type rung struct{ repo, name string }
	for {
		var batch []rung
		seen := map[rung]bool{}
		wait := time.Time{} // the first ring is waited for
		for {
			_ = b.conn.SetReadDeadline(wait)
			n, _, err := b.conn.ReadFromUnix(buf)
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
			if len(fields) != 3 || fields[0] != bellVerb || !filepath.IsAbs(fields[1]) || fields[2] == "" {
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

// RingPublish asks the monitor of the server at socket to publish the
// record called name of the repository at repo. An error means no
// monitor took the ring: the caller publishes another way.
func RingPublish(socket, repo, name string) error {
	msg := []byte(bellVerb + "\x00" + repo + "\x00" + name)
	if len(msg) > maxBell || strings.Contains(repo+name, "\x00") {
		return errors.New("ring the monitor: request too long or not text")
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("ring the monitor: %w", err)
	}
	defer unix.Close(fd)
	var errs []error
	for _, p := range bellPaths(socket) {
		if !private(filepath.Dir(p)) {
			continue // no monitor of ours binds there
		}
		err := unix.Sendto(fd, msg, 0, &unix.SockaddrUnix{Name: p})
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", p, err))
	}
	if len(errs) == 0 {
		return errors.New("ring the monitor: no bell in a folder of this user's own")
	}
	return fmt.Errorf("ring the monitor: %w", errors.Join(errs...))
}
