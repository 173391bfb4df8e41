package uninstall

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// Only owt's lines go from info/exclude: its header and, below it, the
// patterns owt writes. The user's lines stay byte for byte, those above
// the header, those they appended below it, and one that happens to be an
// owt pattern written above the header.
func TestRemoveExcludeLinesKeepsTheUsers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "exclude")
	in := "# mine\r\n/.claude/settings.local.json\n*.log\n# owt\n/.gemini/settings.json\nbuild/\n/.claude/settings.local.json\n"
	require.NoError(t, os.WriteFile(path, []byte(in), 0o644))
	own := map[string]bool{"/.claude/settings.local.json": true, "/.gemini/settings.json": true}
	require.NoError(t, removeExcludeLines(path, own))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "# mine\r\n/.claude/settings.local.json\n*.log\nbuild/\n", string(got))
	// Nothing of owt's: the file is not rewritten.
	fi, _ := os.Stat(path)
	require.NoError(t, removeExcludeLines(path, own))
	fi2, _ := os.Stat(path)
	require.Equal(t, fi.ModTime(), fi2.ModTime())
}

func TestOwnLine(t *testing.T) {
	for line, want := range map[string]bool{
		"set -g @plugin 'owt-tmux/owt'":          true,
		"set -g @owt-key-table prefix":           true,
		"set -g status-right '#{owt_status} %H'": true,
		"run-shell 'owt tmux init'":              true,
		"# set -g @plugin 'owt-tmux/owt'":        false,
		"set -g @plugin 'tmux-plugins/tpm'":      false,
		"set -g mouse on":                        false,
	} {
		require.Equal(t, want, ownLine(line), line)
	}
}

// A lock a running owt holds and a bell a monitor listens on are in use;
// a free lock and a socket no one listens on are not. owt uninstall
// leaves a runtime folder with files in use (with XDG_RUNTIME_DIR unset
// it is /run/user/UID/owt, which an owt started with it set shares).
func TestInUseNamesHeldLocksAndLiveBells(t *testing.T) {
	dir := t.TempDir()
	free := filepath.Join(dir, "free.lock")
	held := filepath.Join(dir, "held.lock")
	for _, p := range []string{free, held} {
		require.NoError(t, os.WriteFile(p, nil, 0o600))
	}
	require.Empty(t, inUse(dir))
	f, err := os.Open(held)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB))
	bell := filepath.Join(dir, "bell.sock")
	l, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: bell, Net: "unixgram"})
	require.NoError(t, err)
	dead := filepath.Join(dir, "dead.sock")
	l2, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: dead, Net: "unixgram"})
	require.NoError(t, err)
	l2.Close() // its file stays, no one listens
	require.FileExists(t, dead)
	require.ElementsMatch(t, []string{held, bell}, inUse(dir))
	l.Close()
}
