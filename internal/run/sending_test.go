package run

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A retry past the last attempt starts attempt N again, and a run may be
// registered again under its name: each attempt's message has its own key,
// so an earlier attempt's delivered message never stands for it.
func TestEachAttemptStartNamesItsOwnMessages(t *testing.T) {
	r := engineRun(t, "")
	a, _ := r.Task("a")
	a.Attempt, a.StartedAt = 3, time.Unix(100, 0)
	msg := Message{Kind: MsgNudge, Text: NudgeText}
	first := SendingOf(r, a, msg).Key
	a.StartedAt = time.Unix(200, 0) // attempt 3 again, after owt run retry
	require.NotEqual(t, first, SendingOf(r, a, msg).Key)
}
