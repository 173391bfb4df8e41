package run

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBarTextShowsThisServersUnfinishedRuns(t *testing.T) {
	const sock = "/tmp/tmux/default"
	auth := childRun(t) // a, b done; c pending
	auth.Name, auth.Socket = "auth", sock
	c, _ := auth.Task("c")
	require.Equal(t, "⏵auth 2/3", BarText([]*Run{auth}, sock))

	c.State = NeedsYou
	require.Equal(t, "⏵auth 2/3 #[fg=black,bg=yellow,bold] ▲1 #[default]", BarText([]*Run{auth}, sock))

	other := engineRun(t, "")
	other.Name, other.Socket = "other", "/tmp/other/default"
	paused := engineRun(t, "")
	paused.Name, paused.Socket = "db", sock
	_, _, err := paused.SetState(Stopped, time.Unix(1, 0))
	require.NoError(t, err)
	require.Equal(t, "⏵auth 2/3 #[fg=black,bg=yellow,bold] ▲1 #[default] ⏸db 0/2", BarText([]*Run{auth, other, paused}, sock),
		"another server's run is that server's to show")

	auth.State = Finished
	paused.State = Finished
	require.Empty(t, BarText([]*Run{auth, other, paused}, sock), "finished runs drop off")
}
