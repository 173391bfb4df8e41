package run

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A notice shows the first line of why, its controls dropped: the words
// of an agent or of git cannot drive the terminal it is drawn on.
func TestANoticeShowsWhyOnOneCleanLine(t *testing.T) {
	r := childRun(t)
	a, _ := r.Task("a")
	a.State, a.Why = NeedsYou, "the agent \x1b[31masks\tsomething\nmore"
	require.Equal(t, "owt: run r: task a needs you (the agent [31masks something); 'owt run status r'", NeedsText(r, a))
}
