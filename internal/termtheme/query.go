package termtheme

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// QueryBackground asks the terminal on in/out for its background colour
// (OSC 11) followed by a device-attributes query (DA1) that every
// terminal, and tmux itself, answers: the reply to the second ends the
// wait, so a terminal that does not know OSC 11 costs one round trip, not
// the timeout, and nothing of the replies is left for the screen to read
// as keys. It returns the reply to the first, "" when none came (or in is
// no terminal). The terminal is in raw mode meanwhile, and restored.
func QueryBackground(in *os.File, out io.Writer, timeout time.Duration) string {
	if in == nil {
		return ""
	}
	fd := int(in.Fd())
	if !term.IsTerminal(fd) {
		return ""
	}
	old, err := term.MakeRaw(fd)
	if err != nil {
		return ""
	}
	defer func() { _ = term.Restore(fd, old) }()
	if _, err := fmt.Fprint(out, "\x1b]11;?\x1b\\\x1b[c"); err != nil {
		return ""
	}
	var got []byte
	buf := make([]byte, 256)
	deadline := time.Now().Add(timeout)
	for !da1Done(got) {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			break
		}
		k, err := in.Read(buf)
		if err != nil || k == 0 {
			break
		}
		got = append(got, buf[:k]...)
	}
	reply := string(got)
	if i := strings.Index(reply, "\x1b[?"); i >= 0 {
		reply = reply[:i]
	}
	return reply
}

// da1Done reports whether b holds the whole reply to DA1 (ESC [ ? … c).
func da1Done(b []byte) bool {
	s := string(b)
	i := strings.Index(s, "\x1b[?")
	return i >= 0 && strings.ContainsRune(s[i:], 'c')
}
