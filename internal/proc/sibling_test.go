package proc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func writeExe(t *testing.T, p string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755))
}

// owt finds its programs beside itself, beside where a link to it points,
// and else on PATH (go install puts them in GOBIN, the plugin links them
// into ~/.local/bin); a missing one is named with how to install it.
func TestSiblingBesideThenPATHElseNamed(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "a", "owt")
	writeExe(t, self)
	writeExe(t, filepath.Join(dir, "a", "owt-popup"))
	t.Setenv("PATH", filepath.Join(dir, "path"))

	p, err := Sibling(self, "owt-popup")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "a", "owt-popup"), p)

	// A link to owt in another folder: its programs are where it points.
	link := filepath.Join(dir, "links", "owt")
	require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
	require.NoError(t, os.Symlink(self, link))
	p, err = Sibling(link, "owt-popup")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "a", "owt-popup"), p)

	// Not beside, on PATH.
	writeExe(t, filepath.Join(dir, "path", "owt-wait"))
	p, err = Sibling(self, "owt-wait")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "path", "owt-wait"), p)

	// Nowhere: named, with the way to install it.
	_, err = Sibling(self, "owt-mcp")
	require.EqualError(t, err, "owt-mcp is not installed beside "+filepath.Join(dir, "a")+" or on PATH: install owt's programs together "+
		"(the release archive with scripts/install.sh, make install, or go install ./cmd/...; see docs/install.md)")
}
