package daemon

import (
	"bytes"
	"os"
	"strconv"
)

// MonitorLacks reports whether the monitor running for the server at
// socket has no value for the environment variable name, and its pid.
// The monitor keeps the environment of whichever owt started it (owt new,
// owt tmux init, a hook), so a variable the user's shell has now may be
// missing there. lacks is false when no monitor runs or its environment
// cannot be read (no /proc, as on macOS): only a sure answer is given.
func MonitorLacks(socket, name string) (pid int, lacks bool) {
	pid = RunningPID(socket)
	if pid == 0 {
		return 0, false
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return pid, false
	}
	return pid, !hasValue(env, name)
}

// hasValue reports whether the NUL-separated environment env sets name
// to something not empty.
func hasValue(env []byte, name string) bool {
	prefix := []byte(name + "=")
	for _, kv := range bytes.Split(env, []byte{0}) {
		if bytes.HasPrefix(kv, prefix) && len(kv) > len(prefix) {
			return true
		}
	}
	return false
}
