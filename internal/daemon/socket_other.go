//go:build !linux

package daemon

import "golang.org/x/sys/unix"

// dgramSocket is a Unix datagram socket, closed on exec, that never
// blocks: both set just after it is made, where socket(2) takes no such
// flags (macOS).
func dgramSocket() (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}
