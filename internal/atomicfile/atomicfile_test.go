package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A symlinked file stays a link (its target is replaced), an existing
// file keeps its mode, and a device or directory is refused, not replaced.
func TestReplaceFollowsLinksKeepsModesAndRefusesNonFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles-hooks.json")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
	link := filepath.Join(dir, "hooks.json")
	require.NoError(t, os.Symlink(target, link))

	require.NoError(t, Replace(link, []byte("new"), 0o600))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.True(t, fi.Mode()&os.ModeSymlink != 0, "the link is still a link")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "new", string(got))
	fi, err = os.Stat(target)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), fi.Mode().Perm())

	fresh := filepath.Join(dir, "fresh")
	require.NoError(t, Replace(fresh, []byte("x"), 0o600))
	fi, err = os.Stat(fresh)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	require.Error(t, Replace(dir, []byte("x"), 0o600))
	require.Error(t, Replace(os.DevNull, []byte("x"), 0o600))
	fi, err = os.Stat(os.DevNull)
	require.NoError(t, err)
	require.True(t, fi.Mode()&os.ModeCharDevice != 0, "/dev/null is still a device")
}

// owt's own files are always 0600, whatever mode the old one had.
func TestWriteKeepsOwtsFilesPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "repo.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
	require.NoError(t, Write(path, []byte("new")))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

// A write that cannot end (a folder where the file goes) leaves no temp
// file behind in the user's folder.
func TestAFailedWriteLeavesNoTempFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "AGENTS.md")
	seen := ""
	// A file in the way of the rename keeps the temp file for a look.
	require.NoError(t, os.Mkdir(path, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(path, "x"), nil, 0o644))
	require.Error(t, WriteMode(path, []byte("x"), 0o644))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if e.Name() != "AGENTS.md" {
			seen = e.Name()
		}
	}
	require.Empty(t, seen, "a failed write leaves no temp file")
}

// WriteUnsynced replaces the file as Write does (whole, private, no temp
// file left): only the fsync is left out.
func TestWriteUnsyncedReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	require.NoError(t, WriteUnsynced(p, []byte("new")))
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, "new", string(got))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temp file left")
}
