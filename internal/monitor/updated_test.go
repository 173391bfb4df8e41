package monitor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// An update that lands between a monitor's exec and its first look at
// its own program file is still an update: on Linux the file the process
// runs is what it compares with, not whatever is at the path by then. (A
// loaded machine's install did land there, and that monitor ran the old
// code until its server ended.)
func TestAnUpdateBeforeTheMonitorLooksAtItselfIsStillSeen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("elsewhere the path is all a process can look at")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "owt")
	data, err := os.ReadFile(self)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))

	cmd := exec.Command(bin, "-test.run", "^TestHelperUpdatedBeforeItLooks$")
	cmd.Env = append(os.Environ(), "OWT_TEST_UPDATED_HELPER=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "replaced=true")
}

// TestHelperUpdatedBeforeItLooks is the monitor process of the test above:
// its program is replaced (renamed over, as an install does) before it
// looks at itself.
func TestHelperUpdatedBeforeItLooks(t *testing.T) {
	if os.Getenv("OWT_TEST_UPDATED_HELPER") != "1" {
		t.Skip("run by TestAnUpdateBeforeTheMonitorLooksAtItselfIsStillSeen")
	}
	path, err := os.Executable()
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+".new", append(data, 0), 0o755))
	require.NoError(t, os.Rename(path+".new", path))
	fmt.Printf("replaced=%v\n", thisProgram().replaced())
}
