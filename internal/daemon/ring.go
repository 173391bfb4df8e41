// The bell is a unix datagram socket where a hook asks the running
// monitor to publish a record it just changed, instead of starting an
// "owt _publish" process: the monitor is already there, holding a tmux
// client.
//
// A ring is one datagram, "publish\x00REPO\x00NAME", sent without waiting:
// a full queue, a missing or dead monitor (no socket, or a socket file no
// one reads) fails at once, and the hook starts "owt _publish" instead.
// The socket lives beside the monitor's lock, in the directory tmux made
// for its socket, else in owt's runtime dir: the first of BellPaths short
// enough for a socket address (108 bytes) whose directory is the user's
// own and closed to others (a directory anyone can write to, such as
// the /tmp of a tmux -S /tmp/x, could hold a stranger's socket under
// the name a hook rings: it would take the rings, and no status would
// reach tmux). This file is the ringing end and the bell's place and wire
// format; bell.go is the monitor's end.

package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/adrg/xdg"
	"golang.org/x/sys/unix"
)

// ringVerb is the one request a ring makes.
const ringVerb = "publish"

// ringMaxLen bounds a datagram: two paths and a verb.
const ringMaxLen = 3 * 4096

// BellPaths are where the bell of the server at socket may be, in the
// order the monitor tries to bind them and a hook tries to ring them.
func BellPaths(socket string) []string {
	sum := sha256.Sum256([]byte(socket))
	name := "monitor-" + hex.EncodeToString(sum[:])[:16] + ".sock"
	candidates := []string{
		socket + ".owt-monitor.sock",
		filepath.Join(xdg.RuntimeDir, "owt", name),
	}
	var out []string
	for _, p := range candidates {
		if len(p) < len(unix.RawSockaddrUnix{}.Path) {
			out = append(out, p)
		}
	}
	return out
}

// privateDir reports whether dir is a directory (not a link) of this user
// that no one else may write to.
func privateDir(dir string) bool {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Getuid() && st.Mode&0o022 == 0
}

// Ring asks the monitor of the server at socket to publish the record
// called name of the repository at repo. An error means no monitor took
// the ring: the caller publishes another way.
func Ring(socket, repo, name string) error {
	msg := []byte(ringVerb + "\x00" + repo + "\x00" + name)
	if len(msg) > ringMaxLen || strings.Contains(repo+name, "\x00") {
		return errors.New("ring the monitor: request too long or not text")
	}
	fd, err := dgramSocket()
	if err != nil {
		return fmt.Errorf("ring the monitor: %w", err)
	}
	defer unix.Close(fd)
	var errs []error
	for _, p := range BellPaths(socket) {
		if !privateDir(filepath.Dir(p)) {
			continue // no monitor of ours binds there
		}
		to := &unix.SockaddrUnix{Name: p}
		err := unix.Sendto(fd, msg, 0, to)
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
