package daemon

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"
)

func TestOneLockPerServer(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	sock := filepath.Join(t.TempDir(), "default")

	require.False(t, Running(sock))
	l, err := Acquire(sock)
	require.NoError(t, err)
	require.True(t, Running(sock))
	require.Equal(t, os.Getpid(), PID(sock))
	_, err = Acquire(sock)
	require.ErrorIs(t, err, ErrRunning, "a second monitor of the same server")

	other, err := Acquire(sock + "-other")
	require.NoError(t, err, "another server has its own lock")
	other.Release()

	l.Release()
	require.False(t, Running(sock))
	require.Zero(t, PID(sock))
}

func TestLockIsBesideTheSocketWhateverTheRuntimeDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	sock := filepath.Join(t.TempDir(), "default")
	l, err := Acquire(sock)
	require.NoError(t, err)
	defer l.Release()

	// A starter with another runtime dir still sees this server's monitor.
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	require.True(t, Running(sock))
	_, err = Acquire(sock)
	require.ErrorIs(t, err, ErrRunning)
}
