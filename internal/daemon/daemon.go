// Package daemon finds, locks and starts the one "owt monitor" of a tmux
// server, and is its bell: the socket where a hook rings the monitor to
// show a record it changed (Ring; the monitor's end is Bell). It sits
// below the workspace (owt new starts the monitor) and the monitor
// itself, and knows nothing of what the monitor does.
//
// The lock is an flock on <server socket>.owt-monitor.lock, held by the
// monitor for its whole life; a second monitor for the same server fails
// to take it and exits. The monitor writes its pid beside it (.pid) for
// people and tests.
package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/adrg/xdg"
	"golang.org/x/sys/unix"

	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// runDir is where the locks live: $XDG_RUNTIME_DIR/owt, or a private
// directory under the temp dir when the runtime dir is unusable.
func runDir() (string, error) {
	dir := filepath.Join(xdg.RuntimeDir, "owt")
	if err := os.MkdirAll(dir, 0o700); err == nil {
		return dir, nil
	}
	dir = filepath.Join(os.TempDir(), "owt-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create runtime dir: %w", err)
	}
	return dir, nil
}

// LockPath is the monitor lock of the server at socket: beside the
// socket (in the directory tmux made for it, private to the user), so
// every starter finds the same lock whatever its XDG_RUNTIME_DIR. Where
// that directory takes no file, the runtime dir is used.
func LockPath(socket string) (string, error) {
	beside := socket + ".owt-monitor.lock"
	if f, err := os.OpenFile(beside, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		f.Close()
		return beside, nil
	}
	dir, err := runDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(socket))
	return filepath.Join(dir, "monitor-"+hex.EncodeToString(sum[:])[:16]+".lock"), nil
}

// CloseInherited closes the descriptors above stderr that this process
// inherited from its starter (those without close-on-exec; every one Go
// opens has it). A long-lived monitor must not hold, say, the pipe of the
// command that started "owt new" open: its reader would wait for the
// end of it as long as the monitor lives.
func CloseInherited() {
	// Linux lists them in /proc/self/fd, macOS (which has no /proc) in
	// /dev/fd. The listing's own descriptor is close-on-exec: kept.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		if entries, err = os.ReadDir("/dev/fd"); err != nil {
			return
		}
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if err == nil && flags&unix.FD_CLOEXEC == 0 {
			_ = unix.Close(fd)
		}
	}
}

// Lock is a held monitor lock.
type Lock struct {
	f   *os.File
	pid string
}

// ErrRunning is returned by Acquire when another monitor holds the lock.
var ErrRunning = errors.New("a monitor is already running for this tmux server")

// Acquire takes the monitor lock of the server at socket without waiting,
// and records this process's pid next to it.
func Acquire(socket string) (*Lock, error) {
	path, err := LockPath(socket)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open monitor lock: %w", err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrRunning
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	l := &Lock{f: f, pid: strings.TrimSuffix(path, ".lock") + ".pid"}
	_ = os.WriteFile(l.pid, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return l, nil
}

// Release gives the lock up.
func (l *Lock) Release() {
	_ = os.Remove(l.pid)
	_ = l.f.Close()
}

// Running reports whether a monitor holds the lock of the server at socket.
func Running(socket string) bool {
	path, err := LockPath(socket)
	if err != nil {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB); err != nil {
		return true
	}
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}

// PID returns the pid the monitor of the server at socket recorded, or 0.
func PID(socket string) int {
	path, err := LockPath(socket)
	if err != nil {
		return 0
	}
	b, err := os.ReadFile(strings.TrimSuffix(path, ".lock") + ".pid")
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// EnsureRunning starts "owt monitor" for the server tm talks to unless one
// runs. The monitor is detached (its own session, stdin from /dev/null,
// output to owt's log) and outlives the caller; it exits with the server.
// Two callers racing both start one; the loser of the lock exits at once.
func EnsureRunning(owt string, tm *tmux.Client) error {
	socket := tm.ServerSocket()
	if Running(socket) {
		return nil
	}
	log, err := state.OpenLog()
	if err != nil {
		return err
	}
	defer log.Close()
	args := []string{"monitor", "--socket", socket}
	if f := owtlog.Override(); f != "" {
		args = append([]string{"--log-format", f}, args...) // this run's --log-format
	}
	cmd := exec.Command(owt, args...)
	cmd.Dir = "/"
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.ExtraFiles = nil // only stdin, stdout and stderr (it closes strays itself)
	for _, kv := range os.Environ() {
		// OWT_ variables say who runs owt (an agent's name, its repo), not
		// the monitor's business; the ssh config the user chose is.
		if k, _, _ := strings.Cut(kv, "="); k != "TMUX_PANE" && (!strings.HasPrefix(k, "OWT_") || k == ssh.ConfigEnv) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start owt monitor: %w", err)
	}
	return cmd.Process.Release()
}

// RunningPID is the pid of the monitor that holds the lock of the server
// at socket, or 0 when none does. Unlike LockPath it creates nothing: owt
// uninstall --dry-run asks it.
func RunningPID(socket string) int {
	sum := sha256.Sum256([]byte(socket))
	name := "monitor-" + hex.EncodeToString(sum[:])[:16] + ".lock"
	for _, path := range []string{
		socket + ".owt-monitor.lock",
		filepath.Join(xdg.RuntimeDir, "owt", name),
		filepath.Join(os.TempDir(), "owt-"+strconv.Itoa(os.Getuid()), name),
	} {
		f, err := os.OpenFile(path, os.O_RDONLY, 0)
		if err != nil {
			continue
		}
		err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
		if err == nil {
			_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		}
		f.Close()
		if err == nil {
			continue // nobody holds it
		}
		b, _ := os.ReadFile(strings.TrimSuffix(path, ".lock") + ".pid")
		if n, _ := strconv.Atoi(strings.TrimSpace(string(b))); n > 0 {
			return n
		}
	}
	return 0
}
