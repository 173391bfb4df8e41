package proc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	writeExe(t, filepath.Join(dir, "path", "owt-other"))
	p, err = Sibling(self, "owt-other")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "path", "owt-other"), p)

	// Nowhere: named, with the way to install it.
	_, err = Sibling(self, "owt-mcp")
	require.EqualError(t, err, "owt-mcp is not installed beside "+filepath.Join(dir, "a")+" or on PATH: install owt's programs together "+
		"(the release archive with scripts/install.sh, make install, or go install ./cmd/...; see docs/install.md)")
}

// OnPath finds every executable of that name in PATH's absolute folders,
// once each, in order; LookPathIn the first.
func TestOnPath(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{a, c} {
		if err := os.WriteFile(filepath.Join(d, "owt"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(b, "owt"), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := strings.Join([]string{"", "rel", b, a, c, a}, string(os.PathListSeparator))
	got := OnPath("owt", path)
	want := []string{filepath.Join(a, "owt"), filepath.Join(c, "owt")}
	if !slices.Equal(got, want) {
		t.Fatalf("OnPath = %q, want %q", got, want)
	}
	if p := LookPathIn("owt", path); p != want[0] {
		t.Fatalf("LookPathIn = %q, want %q", p, want[0])
	}
	if p := LookPathIn("nothing", path); p != "" {
		t.Fatalf("LookPathIn of a missing program = %q", p)
	}
}
