package uninstall

import (
	"os"
	"path/filepath"
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
