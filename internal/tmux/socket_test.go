package tmux

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestServerSocket(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(dir, link))
	require.Equal(t, filepath.Join(dir, "s"), (&Client{Socket: filepath.Join(link, "s")}).ServerSocket(), "one server, one name")

	t.Setenv("TMUX", dir+"/work,123,4")
	require.Equal(t, filepath.Join(dir, "work"), (&Client{}).ServerSocket())
	t.Setenv("TMUX", "")
	t.Setenv("TMUX_TMPDIR", dir)
	require.Equal(t, filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), "default"), (&Client{}).ServerSocket())
	require.Equal(t, filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), "other"), NamedSocket("other"))
}
