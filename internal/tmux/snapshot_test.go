package tmux

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseSnapshot(t *testing.T) {
	m := "⟦mark⟧"
	out := "%1\x1f$1\x1fapp/a\x1f@1\x1f/dev/pts/3\x1f0\x1f\x1f1700000000\x1f1\n" +
		"%2\x1f$2\x1fapp/b\x1f@2\x1f/dev/pts/4\x1f1\x1f137\x1f1700000005\x1f0\n" +
		m + "%1\n" + "line one\n> \n\n" +
		m + "%2\n" + "bye\n"
	panes, caps := parseSnapshot(out, m)
	require.Equal(t, []PaneState{
		{ID: "%1", SessionID: "$1", SessionName: "app/a", WindowID: "@1", TTY: "/dev/pts/3", Activity: time.Unix(1700000000, 0), Viewed: true},
		{ID: "%2", SessionID: "$2", SessionName: "app/b", WindowID: "@2", TTY: "/dev/pts/4", Dead: true, DeadStatus: 137, Activity: time.Unix(1700000005, 0)},
	}, panes)
	require.Equal(t, map[string]string{"%1": "line one\n> \n", "%2": "bye\n"}, caps)
}
