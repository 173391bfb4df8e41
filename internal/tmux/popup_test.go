package tmux

import (
	"os/exec"
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
