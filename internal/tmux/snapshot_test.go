package tmux

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParseSnapshot(t *testing.T) {
	m := "⟦mark⟧"
	out := "%1\x1f$1\x1fapp/a\x1f@1\x1f/dev/pts/3\x1f0\x1f/\x1f1700000000\x1f1\n" +
		"%2\x1f$2\x1fapp/b\x1f@2\x1f/dev/pts/4\x1f1\x1f/9\x1f1700000005\x1f0\n" +
		"%3\x1f$3\x1fapp/c\x1f@3\x1f/dev/pts/5\x1f1\x1f3/\x1f1700000005\x1f0\n" +
		m + "%1\n" + "line one\n> \n\n" +
		m + "%2\n" + "bye\n"
	panes, caps := parseSnapshot(out, m)
	require.Equal(t, []PaneState{
		{ID: "%1", SessionID: "$1", SessionName: "app/a", WindowID: "@1", TTY: "/dev/pts/3", Activity: time.Unix(1700000000, 0), Viewed: true},
		{ID: "%2", SessionID: "$2", SessionName: "app/b", WindowID: "@2", TTY: "/dev/pts/4", Dead: true, DeadStatus: 137, Activity: time.Unix(1700000005, 0)},
		{ID: "%3", SessionID: "$3", SessionName: "app/c", WindowID: "@3", TTY: "/dev/pts/5", Dead: true, DeadStatus: 3, Activity: time.Unix(1700000005, 0)},
	}, panes)
	require.Equal(t, map[string]string{"%1": "line one\n> \n", "%2": "bye\n"}, caps)

	_, caps = parseSnapshot(m+"%1\n"+m+"%2\nbye", m)
	require.Equal(t, map[string]string{"%1": "", "%2": "bye"}, caps, "an empty capture, and one with no final newline")
}

// A look at hundreds of panes is over what tmux takes in one call (16
// KiB of command line): at 500 agents the monitor's every tick was
// refused whole ("command too long") and it saw nothing. It is split
// into calls that fit, and every pane is read.
func TestSnapshotOfManyPanesReadsEveryOne(t *testing.T) {
	c := server(t)
	var cmds [][]string
	for i := 0; i < 250; i++ {
		cmds = append(cmds, []string{"new-window", "-d", "-t", "base", "sh", "-c", `echo "screen of $TMUX_PANE"; exec sleep 600`})
	}
	_, err := c.RunBatch(cmds...)
	require.NoError(t, err)
	var ids []string
	require.Eventually(t, func() bool {
		panes, caps, err := c.Snapshot(nil, "⟦m⟧")
		if err != nil || len(panes) != 251 {
			return false
		}
		ids = ids[:0]
		for _, p := range panes {
			ids = append(ids, p.ID)
		}
		panes, caps, err = c.Snapshot(ids, "⟦m⟧")
		if err != nil || len(panes) != 251 {
			return false
		}
		for _, id := range ids[1:] {
			if !strings.Contains(caps[id], "screen of "+id+"\n") {
				return false
			}
		}
		return len(caps) == 251
	}, 20*time.Second, 100*time.Millisecond)
	require.Greater(t, len(batches(snapshotCommands(ids, "⟦m⟧"))), 1, "too long for one call")
}
