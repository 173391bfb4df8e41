package e2e

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/creack/pty"
	"github.com/stretchr/testify/require"
)

// Terminal is a program running in a pseudo-terminal, as if in a user's
// terminal emulator.
type Terminal struct {
	cmd  *exec.Cmd
	pty  *os.File
	once sync.Once
}

// RunInTerminal starts argv in a new pty of 120x40.
func (e *Env) RunInTerminal(dir string, argv ...string) *Terminal {
	e.t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = e.Environ()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	require.NoError(e.t, err)
	t := &Terminal{cmd: cmd, pty: f}
	go func() { _, _ = io.Copy(io.Discard, f) }()
	e.t.Cleanup(t.Close)
	return t
}

// Close ends the program and releases the pty.
func (t *Terminal) Close() {
	t.once.Do(func() {
		_ = t.cmd.Process.Signal(syscall.SIGHUP)
		_ = t.pty.Close()
		_, _ = t.cmd.Process.Wait()
	})
}
