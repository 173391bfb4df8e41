package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	// Every run ends well within a minute, or the script has no bound.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{filepath.Join(fixture.ModuleRoot(), "scripts", "install.sh")}, args...)...)
	cmd.Dir = home
	cmd.Env = append([]string{"HOME=" + home, "PATH=/usr/bin:/bin", "SHELL=/bin/bash", "TMPDIR=" + os.TempDir()}, extra...)
	// Its downloads too, not only sh: they are in its process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "install.sh still ran after a minute:\n%s", out)
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
	require.Contains(t, out, "installed owt owt-popup owt-mcp into "+bin+": "+strings.TrimSpace(string(version)))
	require.Contains(t, out, bin+" is not on your PATH. Add it:")
	require.Contains(t, out, `echo 'export PATH="`+bin+`:$PATH"' >> ~/.bashrc`)
	entries, err := os.ReadDir(bin)
	require.NoError(t, err)
	require.Len(t, entries, len(releasePrograms), "nothing but the programs is left there")

	// PREFIX on PATH: installed there, nothing to add.
	prefix := filepath.Join(e.Root, "prefix")
	out, code = installScript(t, home, []string{"OWT_RELEASE_URL=" + srv.URL + "/" + filepath.Base(good), "PREFIX=" + prefix, "PATH=" + filepath.Join(prefix, "bin") + ":/usr/bin:/bin"})
	require.Equal(t, 0, code, out)
	require.FileExists(t, filepath.Join(prefix, "bin", "owt-mcp"))
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

// A bad release server cannot fill the disk or hold install.sh forever:
// a file that never ends is cut off at its size (checksums.txt 1 MB, the
// archive 100 MB), a server that drips is cut off at OWT_DOWNLOAD_TIMEOUT,
// with curl and with wget alike, and nothing is installed or left in
// TMPDIR. A release URL that is not http(s):// or file:// (one starting
// with -, which curl would read as an option) is refused with one line,
// exit 2. A kill -9 while the programs are copied leaves the old set
// whole, and the next run cleans what it left (issue 34: attack F5, F10,
// F11).
func TestInstallScriptBoundsDownloadsAndInstallsAsASet(t *testing.T) {
	e := NewEnv(t)
	good := e.releaseDir("good", false)
	sums, err := os.ReadFile(filepath.Join(good, "checksums.txt"))
	require.NoError(t, err)
	zeros := make([]byte, 64<<10)
	endless := func(w http.ResponseWriter, r *http.Request, pause time.Duration, chunk []byte) {
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			if pause > 0 {
				select {
				case <-r.Context().Done():
				case <-time.After(pause):
				}
			}
		}
	}
	files := http.FileServer(http.Dir(e.Root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/endless/checksums.txt":
			_, _ = w.Write(sums)
		case strings.HasPrefix(r.URL.Path, "/endless/"), r.URL.Path == "/bigsums/checksums.txt":
			endless(w, r, 0, zeros)
		case r.URL.Path == "/drip/checksums.txt":
			endless(w, r, 100*time.Millisecond, []byte("a"))
		default:
			files.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)

	// PATH without curl, for wget's turn.
	noCurl := filepath.Join(e.Root, "no-curl")
	require.NoError(t, os.MkdirAll(noCurl, 0o755))
	for _, dir := range []string{"/usr/bin", "/bin"} {
		entries, _ := os.ReadDir(dir)
		for _, en := range entries {
			if en.Name() != "curl" {
				_ = os.Symlink(filepath.Join(dir, en.Name()), filepath.Join(noCurl, en.Name()))
			}
		}
	}
	paths := map[string]string{"curl": "/usr/bin:/bin"}
	if _, err := exec.LookPath("wget"); err == nil {
		paths["wget"] = noCurl
	}
	home := filepath.Join(e.Root, "home")
	tmpDir := filepath.Join(e.Root, "tmp")
	require.NoError(t, os.MkdirAll(home, 0o755))
	require.NoError(t, os.MkdirAll(tmpDir, 0o755))
	for tool, path := range paths {
		env := func(url string, more ...string) []string {
			return append([]string{"PATH=" + path, "TMPDIR=" + tmpDir, "OWT_RELEASE_URL=" + srv.URL + url}, more...)
		}
		for _, c := range []struct{ url, timeout, file, why string }{
			{"/bigsums", "30", "checksums.txt", "it is larger than 1 MB"},
			{"/endless", "30", "owt_0.0.0-dev-test_", "it is larger than 100 MB"},
			{"/drip", "2", "checksums.txt", "it took longer than 2 s (OWT_DOWNLOAD_TIMEOUT)"},
		} {
			start := time.Now()
			out, code := installScript(t, home, env(c.url, "OWT_DOWNLOAD_TIMEOUT="+c.timeout))
			took := time.Since(start)
			t.Logf("%s, %s: cut off in %v", tool, c.url, took)
			require.Equal(t, 1, code, out)
			require.Contains(t, out, "owt install: could not download "+srv.URL+c.url+"/"+c.file, tool)
			require.Contains(t, out, c.why, tool)
			require.Less(t, took, 20*time.Second, tool)
			require.NoDirExists(t, filepath.Join(home, ".local"), "nothing installed")
			left, _ := os.ReadDir(tmpDir)
			require.Empty(t, left, "nothing left in TMPDIR")
		}
		// Not a URL: refused before any download, one line, exit 2.
		for _, bad := range []string{"-K" + filepath.Join(e.Root, "x"), "ftp://example.invalid/owt"} {
			out, code := installScript(t, home, env("", "OWT_RELEASE_URL="+bad))
			require.Equal(t, 2, code, out)
			require.Equal(t, 1, strings.Count(out, "\n"), out)
			require.Contains(t, out, `owt install: OWT_RELEASE_URL starts with https://, http:// or file://, not "`+bad+`"`)
			require.NoDirExists(t, filepath.Join(home, ".local"), "nothing installed")
		}
		out, code := installScript(t, home, env("/"+filepath.Base(good), "OWT_DOWNLOAD_TIMEOUT=soon"))
		require.Equal(t, 2, code, out)
		require.Contains(t, out, `OWT_DOWNLOAD_TIMEOUT is a number of seconds (1 or more), not "soon"`)
	}

	// kill -9 while the programs are copied (a cp that kills install.sh
	// when it gets to owt-mcp): the old set stays whole.
	bin := filepath.Join(home, ".local", "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	for _, p := range releasePrograms {
		require.NoError(t, os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\necho old "+p+"\n"), 0o755))
	}
	killer := filepath.Join(e.Root, "killer")
	require.NoError(t, os.MkdirAll(killer, 0o755))
	e.WriteFile(killer, "cp", "#!/bin/sh\ncase \"$1\" in */owt-mcp) kill -9 $PPID; exit 1 ;; esac\nexec /bin/cp \"$@\"\n")
	require.NoError(t, os.Chmod(filepath.Join(killer, "cp"), 0o755))
	out, code := installScript(t, home, []string{"PATH=" + killer + ":/usr/bin:/bin", "TMPDIR=" + tmpDir, "OWT_RELEASE_URL=" + srv.URL + "/" + filepath.Base(good)})
	require.Equal(t, -1, code, "killed: %s", out)
	for _, p := range releasePrograms {
		got, err := os.ReadFile(filepath.Join(bin, p))
		require.NoError(t, err, "%s still there", p)
		require.Equal(t, "#!/bin/sh\necho old "+p+"\n", string(got), "%s is the old one: the set is not mixed", p)
	}
	left, _ := os.ReadDir(tmpDir)
	require.Len(t, left, 1, "the killed install's temporary folder (no trap runs on kill -9)")
	// The next run installs the new set and cleans what the killed one left.
	out, code = installScript(t, home, []string{"TMPDIR=" + tmpDir, "OWT_RELEASE_URL=" + srv.URL + "/" + filepath.Base(good)})
	require.Equal(t, 0, code, out)
	entries, err := os.ReadDir(bin)
	require.NoError(t, err)
	require.Len(t, entries, len(releasePrograms), "only the programs, no temporary copies: %v", entries)
	for _, p := range releasePrograms {
		want, err := os.ReadFile(filepath.Join(filepath.Dir(owtBin), p))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(bin, p))
		require.NoError(t, err)
		require.Equal(t, want, got, "%s is the archive's", p)
	}
	left, _ = os.ReadDir(tmpDir)
	require.Empty(t, left, "the killed install's temporary folder is cleaned")
}
