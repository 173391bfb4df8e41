package daemon

import "golang.org/x/sys/unix"

// dgramSocket is a Unix datagram socket, closed on exec, that never blocks.
func dgramSocket() (int, error) {
	return unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
}
