package control

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// After a verb, SIGHUP is no longer ignored: the popup that ran it still
// ends with its terminal.
func TestHoldHangupLeavesSIGHUPAsItWas(t *testing.T) {
	before := sigIgn(t)
	release := holdHangup()
	release()
	require.Equal(t, before, sigIgn(t), "SigIgn as before the verb")
}

func sigIgn(t *testing.T) string {
	data, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "SigIgn:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "SigIgn:"))
		}
	}
	t.Skip("no SigIgn in /proc/self/status")
	return ""
}
