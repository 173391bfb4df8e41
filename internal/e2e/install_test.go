package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// installScript runs scripts/install.sh as a new user would — sh, a
// fresh HOME, a PATH of the system's folders only (no Go, no owt) — with
// extra variables and arguments. It returns the output and the exit code.
func installScript(t *testing.T, home string, extra []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("sh", append([]string{filepath.Join(fixture.ModuleRoot(), "scripts", "install.sh")}, args...)...)
	cmd.Dir = home
	cmd.Env = append([]string{"HOME=" + home, "PATH=/usr/bin:/bin", "SHELL=/bin/bash", "TMPDIR=" + os.TempDir()}, extra...)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "%v\n%s", err, out)
		code = ee.ExitCode()
	}
	return string(out), code
}

// From a fresh HOME and without Go, scripts/install.sh fetches the release
// archive for this system from OWT_RELEASE_URL (laid out as GoReleaser
// makes it), checks it against checksums.txt, installs every program into
// ~/.local/bin and says what to add to PATH; a wrong checksum installs
// nothing. make install's --from takes built programs the same way
// (issue 34: no way to get owt without building; owt not on PATH after).
func TestInstallScriptFromAFreshHome(t *testing.T) {
	e := NewEnv(t)
	_, err := exec.LookPath("curl")
	if err != nil {
		_, err = exec.LookPath("wget")
	}
	require.NoError(t, err, "install.sh needs curl or wget")
	good := e.releaseDir("good", false)
	bad := e.releaseDir("bad", true)
	srv := httptest.NewServer(http.FileServer(http.Dir(e.Root)))
	t.Cleanup(srv.Close)

	home := filepath.Join(e.Root, "fresh-home")
	require.NoError(t, os.MkdirAll(home, 0o755))
	start := time.Now()
	out, code := installScript(t, home, []string{"OWT_RELEASE_URL=" + srv.URL + "/" + filepath.Base(good)})
	took := time.Since(start)
	require.Equal(t, 0, code, out)
	t.Logf("install.sh from a fresh HOME took %v", took)
	bin := filepath.Join(home, ".local", "bin")
	for _, p := range releasePrograms {
		want, err := os.ReadFile(filepath.Join(filepath.Dir(owtBin), p))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(bin, p))
		require.NoError(t, err, "%s installed", p)
		require.Equal(t, want, got, "%s is the archive's", p)
	}
	version, err := exec.Command(filepath.Join(bin, "owt"), "--version").Output()
	require.NoError(t, err)
	require.Contains(t, out, "installed owt owt-popup owt-mcp owt-wait into "+bin+": "+strings.TrimSpace(string(version)))
	require.Contains(t, out, bin+" is not on your PATH. Add it:")
	require.Contains(t, out, `echo 'export PATH="`+bin+`:$PATH"' >> ~/.bashrc`)
	entries, err := os.ReadDir(bin)
	require.NoError(t, err)
	require.Len(t, entries, len(releasePrograms), "nothing but the programs is left there")

	// PREFIX on PATH: installed there, nothing to add.
	prefix := filepath.Join(e.Root, "prefix")
	out, code = installScript(t, home, []string{"OWT_RELEASE_URL=" + srv.URL + "/" + filepath.Base(good), "PREFIX=" + prefix, "PATH=" + filepath.Join(prefix, "bin") + ":/usr/bin:/bin"})
	require.Equal(t, 0, code, out)
	require.FileExists(t, filepath.Join(prefix, "bin", "owt-wait"))
	require.NotContains(t, out, "not on your PATH")

	// A wrong checksum: refused, said so, nothing installed.
	home2 := filepath.Join(e.Root, "fresh-home-2")
	require.NoError(t, os.MkdirAll(home2, 0o755))
	out, code = installScript(t, home2, []string{"OWT_RELEASE_URL=" + srv.URL + "/" + filepath.Base(bad)})
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "owt install: sha256 mismatch for "+srv.URL+"/"+filepath.Base(bad)+"/owt_0.0.0-dev-test_")
	require.Contains(t, out, "not installed")
	require.NoDirExists(t, filepath.Join(home2, ".local"), "nothing installed")

	// No release at that address: said so, exit 1.
	out, code = installScript(t, home2, []string{"OWT_RELEASE_URL=" + srv.URL + "/missing"})
	require.Equal(t, 1, code, out)
	require.Contains(t, out, "owt install: could not download "+srv.URL+"/missing/checksums.txt")

	// make install: the programs built in a folder, the same PATH advice.
	built := filepath.Join(e.Root, "stage-good")
	out, code = installScript(t, home2, []string{"SHELL=/usr/bin/zsh"}, "--from", built)
	require.Equal(t, 0, code, out)
	require.FileExists(t, filepath.Join(home2, ".local", "bin", "owt-mcp"))
	require.Contains(t, out, `>> ~/.zshrc`)
	require.NotContains(t, out, "downloading")

	// Bad usage: one line and exit 2.
	out, code = installScript(t, home2, nil, "--frobnicate")
	require.Equal(t, 2, code, out)
	require.Equal(t, 1, strings.Count(out, "\n"), out)
	require.Contains(t, out, "owt install: unknown argument --frobnicate; usage: install.sh")
}
