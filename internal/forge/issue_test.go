package forge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// fakeGh is a gh that prints out, whatever it is asked.
func fakeGh(t *testing.T, out string) Client {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "out.json"), []byte(out), 0o644))
	bin := filepath.Join(dir, "gh")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\ncat \""+filepath.Join(dir, "out.json")+"\"\n"), 0o755))
	return Client{Bin: bin}
}

func TestIssueIsBoundedAndInert(t *testing.T) {
	body := strings.Repeat("é", IssueMax) // two bytes each: the cut falls inside one
	out, err := json.Marshal(map[string]any{"title": "Big \x1b[31mred\x1b[0m", "body": body, "comments": []any{map[string]any{"author": map[string]string{"login": "ann"}, "body": "late"}}})
	require.NoError(t, err)
	is, err := fakeGh(t, string(out)).Issue(t.TempDir(), 3)
	require.NoError(t, err)
	got := is.Text.Typed()
	require.True(t, utf8.ValidString(got))
	require.LessOrEqual(t, len(got), IssueMax+200)
	require.Contains(t, got, "gh issue view 3 --comments")
	require.NotContains(t, got, "\x1b")
	require.True(t, strings.HasPrefix(got, "GitHub issue #3: Big "), got[:40])
	require.NotContains(t, is.Title.Line(), "\x1b")
	require.Equal(t, "Big red", is.Title.Line(), "the sequences go whole, their parameters too")
	require.NotContains(t, got, "[31m")
}
