package daemon

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/tmux"
)

func TestOneLockPerServer(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	xdg.Reload()
	t.Cleanup(xdg.Reload)
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

func TestSocketPath(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(dir, link))
	require.Equal(t, filepath.Join(dir, "s"), SocketPath(&tmux.Client{Socket: filepath.Join(link, "s")}), "one server, one name")

	t.Setenv("TMUX", dir+"/work,123,4")
	require.Equal(t, filepath.Join(dir, "work"), SocketPath(&tmux.Client{}))
	t.Setenv("TMUX", "")
	t.Setenv("TMUX_TMPDIR", dir)
	require.Equal(t, filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), "default"), SocketPath(&tmux.Client{}))
}

func TestLockIsBesideTheSocketWhateverTheRuntimeDir(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	xdg.Reload()
	t.Cleanup(xdg.Reload)
	sock := filepath.Join(t.TempDir(), "default")
	l, err := Acquire(sock)
	require.NoError(t, err)
	defer l.Release()

	// A starter with another runtime dir still sees this server's monitor.
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	xdg.Reload()
	require.True(t, Running(sock))
	_, err = Acquire(sock)
	require.ErrorIs(t, err, ErrRunning)
}
