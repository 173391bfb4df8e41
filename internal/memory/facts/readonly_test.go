package facts

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A memory owt cannot write (another user's, a read-only folder) is still
// read: listed and searched; a change is refused with one clear error and
// nothing is set aside or chmodded.
func TestAMemoryOwtCannotWriteIsStillRead(t *testing.T) {
	if p := os.Getenv("OWT_TEST_READONLY_DB"); p != "" {
		readOnlyChecks(t, p)
		return
	}
	dir, err := os.MkdirTemp("", "owt-ro-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700); _ = os.RemoveAll(dir) })
	path := filepath.Join(dir, "m.db")
	db, err := OpenPath(path)
	require.NoError(t, err)
	_, err = db.Add("the stripe mock listens on port 12111", Gotcha, true, Source{}, time.Now())
	require.NoError(t, err)
	_, err = db.Add("deploys happen on fridays", Fact, false, Source{}, time.Now())
	require.NoError(t, err)
	require.NoError(t, db.Close())
	require.NoError(t, os.Chmod(path, 0o644))
	require.NoError(t, os.Chmod(dir, 0o755))
	if os.Getuid() != 0 {
		require.NoError(t, os.Chmod(path, 0o444))
		require.NoError(t, os.Chmod(dir, 0o555))
		readOnlyChecks(t, path)
		return
	}
	// Root writes anything: the checks run as nobody, from a copy of this
	// test binary nobody may run, on the files root owns.
	self, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(dir, "memory.test")
	require.NoError(t, os.Chmod(dir, 0o755))
	in, err := os.Open(self)
	require.NoError(t, err)
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	require.NoError(t, err)
	_, err = io.Copy(out, in)
	require.NoError(t, err)
	require.NoError(t, out.Close())
	_ = in.Close()
	cmd := exec.Command(bin, "-test.run=^TestAMemoryOwtCannotWriteIsStillRead$", "-test.v")
	cmd.Env = append(os.Environ(), "OWT_TEST_READONLY_DB="+path, "HOME="+dir)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	got, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", got)
	require.Contains(t, string(got), "--- PASS", "%s", got)
	mode, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), mode.Mode().Perm(), "not chmodded")
}

func readOnlyChecks(t *testing.T, path string) {
	db, err := OpenPath(path)
	require.NoError(t, err)
	defer db.Close()
	all, err := db.List("")
	require.NoError(t, err)
	require.Len(t, all, 2)
	hits, err := db.Search("stripe port", 5)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	pinned, err := db.Pinned()
	require.NoError(t, err)
	require.Len(t, pinned, 1)
	_, err = db.Add("a new fact", Fact, false, Source{}, time.Now())
	require.Error(t, err)
	require.False(t, strings.Contains(err.Error(), "\n"), err.Error())
	aside, _ := filepath.Glob(path + ".corrupt-*")
	require.Empty(t, aside)
}
