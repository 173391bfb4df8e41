package setupcmd

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/notify"
)

// owt notify test sends with the caller's environment; the real notices
// go from the monitor, which keeps the environment of whichever owt
// started it. A ntfy test that went through is a failure when the
// monitor lacks the token's variable, said with the way out; other
// channels, and a monitor that has it or cannot be asked, are left as
// they were.
func TestNotifyTestSaysTheMonitorLacksTheToken(t *testing.T) {
	n := config.Defaults().Notify
	n.Ntfy.Topic, n.Ntfy.TokenEnv = "t", "NTFY_TOK"
	rs := []notify.Result{{Channel: "terminal", Result: "sent"}, {Channel: "ntfy", Result: "sent"}}
	checkMonitorEnv(rs, n, func(name string) (int, bool) { return 4242, name == "NTFY_TOK" })
	require.Equal(t, "sent", rs[0].Result)
	require.Equal(t, "failed", rs[1].Result)
	require.Contains(t, rs[1].Error, "monitor (pid 4242) has no NTFY_TOK")
	require.True(t, notify.Failed(rs))

	rs = []notify.Result{{Channel: "ntfy", Result: "sent"}}
	checkMonitorEnv(rs, n, func(string) (int, bool) { return 4242, false })
	require.Equal(t, "sent", rs[0].Result, "the monitor has it")

	n.Ntfy.TokenEnv = ""
	checkMonitorEnv(rs, n, func(string) (int, bool) { t.Fatal("no token: nothing to ask"); return 0, false })
}
