package tmux

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShellQuote(t *testing.T) {
	cases := map[string]string{
		"/usr/local/bin/owt":     "/usr/local/bin/owt",
		"popup":                  "popup",
		"/opt/my tools/owt":      "'/opt/my tools/owt'",
		"/it's/owt":              `'/it'\''s/owt'`,
		"$(touch x)":             `'$(touch x)'`,
		"a;b":                    `'a;b'`,
		"~/owt":                  `'~/owt'`,
		"X=1":                    `'X=1'`,
		"":                       `''`,
		"/path/with#hash/owt":    `'/path/with#hash/owt'`,
		"/back\\slash/and\"dq/o": `'/back\slash/and"dq/o'`,
	}
	for in, want := range cases {
		require.Equal(t, want, ShellQuote(in), in)
	}
}

// What ShellQuote makes, sh reads back as the same single word.
func TestShellQuoteRoundTripsThroughSh(t *testing.T) {
	for _, w := range []string{"/opt/my tools/owt", `/it's/"o"/$(x)`, "a\nb", "`id`", "*", "-n"} {
		out, err := exec.Command("sh", "-c", "printf '%s' "+ShellQuote(w)).Output()
		require.NoError(t, err)
		require.Equal(t, w, string(out))
	}
}

func TestPopupCommand(t *testing.T) {
	p := Popup{Width: "80%", Height: "30", Dir: "#{pane_current_path}", Argv: []string{"/x y/owt", "popup", "switch"}}
	require.Equal(t, []string{"display-popup", "-E", "-w", "80%", "-h", "30", "-d", "#{pane_current_path}", "'/x y/owt' popup switch"}, PopupCommand(p, true))
	require.Equal(t, []string{"new-window", "-n", "owt", "-c", "#{pane_current_path}", "'/x y/owt' popup switch"}, PopupCommand(p, false))
}

func TestSupportsPopup(t *testing.T) {
	require.True(t, SupportsPopup(3, 2))
	require.True(t, SupportsPopup(3, 5))
	require.True(t, SupportsPopup(4, 0))
	require.False(t, SupportsPopup(3, 1))
	require.False(t, SupportsPopup(2, 9))
}

// What CommandLine makes, tmux's parser reads back as the same words:
// no variable, home or format is expanded on the way, and a command that
// if-shell runs from it gets the words it was given.
func TestCommandLineRoundTripsThroughTmux(t *testing.T) {
	c := server(t)
	words := []string{"/opt/my tools/owt", `/it's/"o"/$(x) $HOME ~`, `back\slash`, "#{pane_current_path}", "a;b", "{x}", "80%", "-E", "", "a\n   b\n#c d\r\tz\x1b[0m", "é\xff ; run-shell 'touch /nonexistent/x'"}
	var lines []string
	for i, w := range words {
		lines = append(lines, CommandLine([]string{"set-option", "-g", "@owt-t" + string(rune('a'+i)), w}))
	}
	file := filepath.Join(t.TempDir(), "words.conf")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	_, err := c.Run("source-file", file)
	require.NoError(t, err, strings.Join(lines, "\n"))
	for i, w := range words {
		got, err := c.ShowOption("", "@owt-t"+string(rune('a'+i)))
		require.NoError(t, err)
		require.Equal(t, w, got, lines[i])
	}
	require.Equal(t, `display-popup -E -w 100% "'/x y/owt' popup switch"`, CommandLine([]string{"display-popup", "-E", "-w", "100%", "'/x y/owt' popup switch"}))
}
