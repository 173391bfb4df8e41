package daemon

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// MonitorLacks reads the running monitor's own environment (here this
// test, which holds the lock), not the caller's: owt notify test asks it
// whether the monitor has the token's variable.
func TestMonitorLacksReadsTheMonitorsEnvironment(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	sock := filepath.Join(t.TempDir(), "default")
	pid, lacks := MonitorLacks(sock, "PATH")
	require.Zero(t, pid)
	require.False(t, lacks, "no monitor: no sure answer")

	l, err := Acquire(sock)
	require.NoError(t, err)
	defer l.Release()
	// t.Setenv changes this process's variables, not /proc/PID/environ,
	// which is what the process was started with: as a monitor started
	// from another shell keeps its own.
	t.Setenv("OWT_TEST_ONLY_HERE_TOKEN", "x")
	pid, lacks = MonitorLacks(sock, "OWT_TEST_ONLY_HERE_TOKEN")
	require.NotZero(t, pid)
	require.True(t, lacks)
	_, lacks = MonitorLacks(sock, "PATH")
	require.False(t, lacks)
}
