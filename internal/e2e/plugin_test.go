package e2e

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

var popupKeys = map[string]string{"switch": "M-s", "create": "M-c", "merge": "M-m", "delete": "M-d", "control": "M-o"}

// A user adds the plugin to ~/.tmux.conf and presses prefix + I: TPM clones
// it, owt.tmux finds no binary for this checkout and builds one with Go in
// the background, and the four keys end up bound to popups running it.
// Re-running owt.tmux then finds the binary at once (no build), applies
// changed options, and is idempotent.
func TestTPMInstallsPluginAndBindsKeys(t *testing.T) {
	requireTPM(t)
	e := newQuietEnv(t)
	url := e.bareClone(e.pluginCheckout("owt-src"))
	e.shareGoCaches()
	conf := filepath.Join(e.Home, ".tmux.conf")
	e.WriteFile(e.Home, ".tmux.conf", fmt.Sprintf(`set -g @plugin '%s'
set -g status-right '#{owt_status} %%H:%%M'
run '%s/tpm'
`, url, tpmDir))
	e.Tmux("source-file", conf)

	// prefix + I, typed into a real client.
	_, term := e.attach("harness")
	term.Type("\x02I")

	plugin := filepath.Join(e.Home, ".tmux", "plugins", "owt")
	owt := filepath.Join(plugin, "bin", "owt")
	typed := time.Now()
	e.waitFor(5*time.Minute, "M-s bound by the plugin (bootstrap log: "+filepath.Join(plugin, "bin", "bootstrap.log")+")", func() string {
		if strings.Contains(e.binding("root", "M-s"), "display-popup") {
			return "bound"
		}
		if _, err := os.Stat(plugin); err != nil && time.Since(typed) > 30*time.Second {
			// TPM never started: a keypress lost on a loaded machine.
			// A user presses it again.
			term.Type("\x02I")
			typed = time.Now()
		}
		if msg, _ := e.TryTmux("show-option", "-gqv", "@owt-bootstrap-error"); msg != "" {
			t.Fatalf("bootstrap failed: %s\n%s", msg, readFile(filepath.Join(plugin, "bin", "bootstrap.log")))
		}
		return ""
	})
	require.DirExists(t, filepath.Join(plugin, ".git"), "TPM cloned the plugin")
	for action, key := range popupKeys {
		b := e.binding("root", key)
		require.Contains(t, b, "display-popup -E", action)
		require.Contains(t, b, owt+" popup "+action, action)
		require.Contains(t, b, `-d \"#{pane_current_path}\"`, action)
		require.Contains(t, b, "if-shell -F", action) // the whole client on a phone
	}

	// The binary was built for this checkout: it says so, as a build that
	// is not a release, with the checkout's commit.
	head := e.Git(plugin, "rev-parse", "HEAD")
	out, err := exec.Command(owt, "--version").Output()
	require.NoError(t, err)
	require.Regexp(t, `^owt version v0\.0\.0-dev \(commit `+head[:12]+`, [0-9T:-]+Z\)$`, strings.TrimSpace(string(out)))
	// Built as make build builds (scripts/build.sh): every program,
	// without this machine's paths.
	for _, p := range []string{"owt-popup", "owt-mcp"} {
		require.FileExists(t, filepath.Join(plugin, "bin", p))
	}
	info, err := exec.Command("go", "version", "-m", owt).Output()
	require.NoError(t, err)
	require.Contains(t, string(info), "-trimpath=true")
	require.Contains(t, string(info), "-tags=urfave_cli_no_docs")
	require.Contains(t, string(info), "CGO_ENABLED=0")
	if runtime.GOOS == "linux" { // -s: no symbol table
		f, err := elf.Open(owt)
		require.NoError(t, err)
		require.Nil(t, f.Section(".symtab"), "built with -s -w")
		f.Close()
	}
	// Ready: said on the status line and in the log.
	e.Eventually(10*time.Second, "owt ready on the status line", func() bool {
		return strings.Contains(e.Tmux("show-messages"), "owt ready (built in ")
	})
	// owt is not on the world's PATH, and @owt-link-bin is off: it says how.
	require.Contains(t, e.Tmux("show-messages"), "for owt in a shell: set -g @owt-link-bin on (links into ~/.local/bin), or add "+filepath.Join(plugin, "bin")+" to PATH")
	require.Regexp(t, `(?m)^== .* owt ready: built in [0-9]+ s; owt version v0\.0\.0-dev \(commit `+head[:12], readFile(filepath.Join(plugin, "bin", "bootstrap.log")))

	// The status segment reads an option, never a command.
	right := e.Tmux("show-option", "-gv", "status-right")
	require.NotContains(t, right, "#(")
	require.NotContains(t, right, "#{owt_status}")
	require.Contains(t, right, "#{@owt-status-line}")

	// Options: another key, "none", the prefix table, a popup size. The
	// binary matches now, so run-shell binds before it returns.
	e.Tmux("set-option", "-g", "@owt-key-switch", "M-w")
	e.Tmux("set-option", "-g", "@owt-key-create", "none")
	e.Tmux("set-option", "-g", "@owt-key-table", "prefix")
	e.Tmux("set-option", "-g", "@owt-popup-width", "95%")
	e.Tmux("run-shell", filepath.Join(plugin, "owt.tmux"))
	for _, key := range popupKeys {
		require.Empty(t, e.binding("root", key), "root %s is unbound when the table is prefix", key)
	}
	require.Contains(t, e.binding("prefix", "M-w"), owt+" popup switch")
	require.Contains(t, e.binding("prefix", "M-w"), `-w 95%`)
	require.Empty(t, e.binding("prefix", "M-s"))
	require.Empty(t, e.binding("prefix", "M-c"), "none leaves create unbound")
	require.Contains(t, e.binding("prefix", "M-m"), owt+" popup merge")
	require.Contains(t, e.binding("prefix", "M-d"), owt+" popup delete")

	// Idempotent: running it twice more leaves exactly the same bindings.
	before := e.owtBindings()
	require.Len(t, before, 4)
	e.Tmux("run-shell", filepath.Join(plugin, "owt.tmux"))
	e.Tmux("run-shell", filepath.Join(plugin, "owt.tmux"))
	require.Equal(t, before, e.owtBindings())

	// Back to the defaults: the prefix bindings go, the root ones return.
	for _, o := range []string{"@owt-key-switch", "@owt-key-create", "@owt-key-table", "@owt-popup-width"} {
		e.Tmux("set-option", "-gu", o)
	}
	e.Tmux("run-shell", filepath.Join(plugin, "owt.tmux"))
	require.Empty(t, e.binding("prefix", "M-w"))
	require.Len(t, e.owtBindings(), 5)
	require.Contains(t, e.binding("root", "M-c"), owt+" popup create")

	// A bad option is shown, not swallowed, and names the option.
	e.Tmux("set-option", "-g", "@owt-key-table", "sideways")
	e.Tmux("run-shell", filepath.Join(plugin, "owt.tmux"))
	msg := e.Tmux("show-option", "-gqv", "@owt-bootstrap-error")
	require.Contains(t, msg, "@owt-key-table")
	e.Eventually(5*time.Second, "the problem on the status line", func() bool {
		return strings.Contains(e.Tmux("show-messages"), "@owt-key-table")
	})

	// A key tmux does not know: named, and the other keys still bound.
	e.Tmux("set-option", "-gu", "@owt-key-table")
	e.Tmux("set-option", "-g", "@owt-key-merge", "Hyper-m")
	e.Tmux("run-shell", filepath.Join(plugin, "owt.tmux"))
	require.Contains(t, e.Tmux("show-option", "-gqv", "@owt-bootstrap-error"), `@owt-key-merge "Hyper-m"`)
	require.Contains(t, e.binding("root", "M-s"), owt+" popup switch")
	require.Contains(t, e.binding("root", "M-d"), owt+" popup delete")

	// Fixed: bound again, and the bad key left no trace to trip over.
	e.Tmux("set-option", "-gu", "@owt-key-merge")
	e.Tmux("run-shell", filepath.Join(plugin, "owt.tmux"))
	require.Empty(t, e.Tmux("show-option", "-gqv", "@owt-bootstrap-error"))
	require.Len(t, e.owtBindings(), 5)
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

// Without Go, owt.tmux downloads the release archive for this OS/arch from
// @owt-release-url — laid out as GoReleaser makes a release:
// owt_VERSION_OS_ARCH.tar.gz beside checksums.txt — and installs every
// program in it only when its sha256 matches checksums.txt; it says "owt
// ready", and with @owt-link-bin on puts owt on PATH. A tampered archive is
// refused and the refusal shown. When nothing can be built or downloaded,
// owt on PATH is used, and said so.
func TestBootstrapDownloadsCheckedReleaseElsePATH(t *testing.T) {
	e := newQuietEnv(t, fixture.Long())
	good := e.releaseDir("good", false)
	bad := e.releaseDir("bad", true)
	srv := httptest.NewServer(http.FileServer(http.Dir(e.Root)))
	t.Cleanup(srv.Close)
	e.attach("harness") // a user's client, where the status line shows
	e.Tmux("set-option", "-g", "@owt-build", "off")
	// An owt installed on this machine must not stand in for the download.
	cleanPath := pathWithout(e.Var("PATH"), "owt")
	e.Tmux("set-environment", "-g", "PATH", cleanPath)

	// A good release: installed, keys bound to it. An owt-hook an older
	// owt left is left alone: the settings that still name it are written
	// again at their agent's next start (or by owt doctor --fix).
	plugin := e.pluginCheckout("plugin-good")
	stale := filepath.Join(plugin, "bin", "owt-hook")
	require.NoError(t, os.MkdirAll(filepath.Dir(stale), 0o755))
	require.NoError(t, os.WriteFile(stale, []byte("#!/bin/sh\n"), 0o755))
	e.Tmux("set-option", "-g", "@owt-release-url", srv.URL+"/"+filepath.Base(good))
	e.Tmux("set-option", "-g", "@owt-link-bin", "on")
	e.Tmux("run-shell", filepath.Join(plugin, "owt.tmux"))
	owt := filepath.Join(plugin, "bin", "owt")
	e.waitFor(30*time.Second, "keys bound to the downloaded owt", func() string {
		if strings.Contains(e.binding("root", "M-s"), owt+" popup switch") {
			return "yes"
		}
		return ""
	})
	// The links are made after the keys are bound, before "owt ready".
	e.Eventually(10*time.Second, "owt ready on the status line", func() bool {
		return strings.Contains(e.Tmux("show-messages"), "owt ready (downloaded in ")
	})
	for _, prog := range releasePrograms {
		want, _ := os.ReadFile(filepath.Join(filepath.Dir(owtBin), prog))
		got, err := os.ReadFile(filepath.Join(plugin, "bin", prog))
		require.NoError(t, err)
		require.Equal(t, want, got, "bin/%s is the archive's", prog)
		// @owt-link-bin on: on PATH through ~/.local/bin.
		link, err := os.Readlink(filepath.Join(e.Home, ".local", "bin", prog))
		require.NoError(t, err, "%s linked into ~/.local/bin", prog)
		require.Equal(t, filepath.Join(plugin, "bin", prog), link)
	}
	log := readFile(filepath.Join(plugin, "bin", "bootstrap.log"))
	require.Regexp(t, `(?m)^== .* owt ready: downloaded in [0-9]+ s; owt version `, log)
	require.Contains(t, log, "is not on PATH", "~/.local/bin is not on the world's PATH, and the user is told")
	left, err := os.ReadFile(stale)
	require.NoError(t, err)
	require.Equal(t, "#!/bin/sh\n", string(left), "an older owt's owt-hook is neither written nor removed")
	// Next start-up: the download is remembered for this checkout, so the
	// keys are bound before run-shell returns, with no new install run.
	logBefore := readFile(filepath.Join(plugin, "bin", "bootstrap.log"))
	e.Tmux("unbind-key", "-T", "root", "M-s")
	e.Tmux("run-shell", filepath.Join(plugin, "owt.tmux"))
	require.Contains(t, e.binding("root", "M-s"), owt+" popup switch")
	require.Equal(t, logBefore, readFile(filepath.Join(plugin, "bin", "bootstrap.log")))

	// A lock a killed install left (its pid is gone) is taken over, and
	// said so in the log. @owt-link-bin in a folder holding the user's own
	// owt link (another install): that link is kept and said so; a
	// dangling link is replaced (issue 34: attack F8, F9).
	pluginL := e.pluginCheckout("plugin-lock")
	lock := filepath.Join(pluginL, "bin", ".bootstrap.lock")
	require.NoError(t, os.MkdirAll(lock, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(lock, "pid"), []byte("99999999\n"), 0o644))
	userBin := filepath.Join(e.Root, "user-bin")
	theirs := filepath.Join(e.Root, "opt", "owt")
	require.NoError(t, os.MkdirAll(userBin, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Dir(theirs), 0o755))
	require.NoError(t, copyFile(owtBin, theirs, 0o755))
	require.NoError(t, os.Symlink(theirs, filepath.Join(userBin, "owt")))
	require.NoError(t, os.Symlink(filepath.Join(e.Root, "gone", "owt-mcp"), filepath.Join(userBin, "owt-mcp")))
	e.Tmux("set-option", "-g", "@owt-link-bin", userBin)
	e.Tmux("run-shell", filepath.Join(pluginL, "owt.tmux"))
	owtL := filepath.Join(pluginL, "bin", "owt")
	e.waitFor(30*time.Second, "keys bound past the stale lock (log: "+filepath.Join(pluginL, "bin", "bootstrap.log")+")", func() string {
		if strings.Contains(e.binding("root", "M-s"), owtL+" popup switch") {
			return "yes"
		}
		return ""
	})
	// Released when done: after the links and "owt ready".
	e.Eventually(10*time.Second, "the lock released when done", func() bool {
		_, err := os.Stat(lock)
		return os.IsNotExist(err)
	})
	logL := readFile(filepath.Join(pluginL, "bin", "bootstrap.log"))
	require.Contains(t, logL, "the lock "+lock)
	require.Contains(t, logL, "was left behind: its install (pid 99999999) is not running; taken over")
	link, err := os.Readlink(filepath.Join(userBin, "owt"))
	require.NoError(t, err)
	require.Equal(t, theirs, link, "the user's own owt link is kept")
	for _, prog := range []string{"owt-popup", "owt-mcp"} {
		link, err := os.Readlink(filepath.Join(userBin, prog))
		require.NoError(t, err)
		require.Equal(t, filepath.Join(pluginL, "bin", prog), link, "%s linked (a dangling link replaced)", prog)
	}
	kept := filepath.Join(userBin, "owt") + " is a link to " + theirs + ", not to the plugin's " + owtL + ", so it is left as it is (@owt-link-bin)"
	e.Eventually(10*time.Second, "the kept link said on the status line", func() bool {
		return strings.Contains(e.Tmux("show-messages"), kept)
	})
	require.Eventually(t, func() bool {
		return strings.Contains(readFile(filepath.Join(pluginL, "bin", "bootstrap.log")), kept)
	}, 10*time.Second, 100*time.Millisecond, "and in the log")
	// A lock held by a running install: this one waits for it, and says why.
	require.NoError(t, os.MkdirAll(lock, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(lock, "pid"), []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o644))
	install := exec.Command(filepath.Join(pluginL, "scripts", "bootstrap.sh"), "install")
	install.Env = e.Environ() // the world's tmux, never the default one
	out, err := install.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), fmt.Sprintf("another install (pid %d, since ", os.Getpid()))
	require.Contains(t, string(out), "holds "+lock+": it binds the keys when owt is ready")
	require.NoError(t, os.RemoveAll(lock))
	e.Tmux("set-option", "-g", "@owt-link-bin", "on")

	// A release whose checksum does not match: refused, shown, nothing bound to it.
	plugin2 := e.pluginCheckout("plugin-bad")
	e.Tmux("set-option", "-g", "@owt-release-url", srv.URL+"/"+filepath.Base(bad))
	e.Tmux("run-shell", filepath.Join(plugin2, "owt.tmux"))
	msg := e.waitFor(30*time.Second, "the refusal", func() string {
		return e.Tmux("show-option", "-gqv", "@owt-bootstrap-error")
	})
	require.Contains(t, msg, "sha256 mismatch")
	require.Contains(t, msg, "Install Go", "a hint says what to do")
	e.Eventually(10*time.Second, "the refusal on the status line", func() bool {
		return strings.Contains(e.Tmux("show-messages"), "sha256 mismatch")
	})
	require.Contains(t, readFile(filepath.Join(plugin2, "bin", "bootstrap.log")), "sha256 mismatch")
	for _, prog := range releasePrograms {
		require.NoFileExists(t, filepath.Join(plugin2, "bin", prog), "nothing of a refused archive is installed")
	}
	for _, b := range e.owtBindings() {
		require.NotContains(t, b, plugin2)
	}

	// Nothing to download, owt on PATH: it is used, and the reason shown.
	pathDir := filepath.Join(e.Root, "path-bin")
	require.NoError(t, os.MkdirAll(pathDir, 0o755))
	require.NoError(t, os.Symlink(owtBin, filepath.Join(pathDir, "owt")))
	e.Tmux("set-environment", "-g", "PATH", pathDir+":"+cleanPath)
	plugin3 := e.pluginCheckout("plugin-path")
	e.Tmux("set-option", "-g", "@owt-release-url", srv.URL+"/missing")
	e.Tmux("unbind-key", "-a", "-T", "root")
	e.Tmux("run-shell", filepath.Join(plugin3, "owt.tmux"))
	e.waitFor(30*time.Second, "keys bound to owt from PATH", func() string {
		if strings.Contains(e.binding("root", "M-d"), owtBin+" popup delete") {
			return "yes"
		}
		return ""
	})
	require.Contains(t, e.Tmux("show-option", "-gqv", "@owt-bootstrap-error"), "using "+filepath.Join(pathDir, "owt"))
}

// releasePrograms are the programs a release archive holds
// (.goreleaser.yaml).
var releasePrograms = []string{"owt", "owt-popup", "owt-mcp"}

// releaseDir lays out a release as GoReleaser makes it (make
// release-snapshot's dist/) from the built programs: for this OS/arch
// owt_VERSION_OS_ARCH.tar.gz holding every program at its top beside the
// docs and the key table, and checksums.txt in sha256sum format listing
// it among the other systems' archives. tamper lists a wrong sum for this
// system's. It returns the directory.
func (e *Env) releaseDir(name string, tamper bool) string {
	e.t.Helper()
	const version = "0.0.0-dev-test"
	dir := filepath.Join(e.Root, "release-"+name)
	stage := filepath.Join(e.Root, "stage-"+name)
	require.NoError(e.t, os.MkdirAll(dir, 0o755))
	for _, sub := range []string{"docs", "keybindings"} {
		require.NoError(e.t, os.MkdirAll(filepath.Join(stage, sub), 0o755))
	}
	members := append([]string{}, releasePrograms...)
	for _, p := range releasePrograms {
		require.NoError(e.t, copyFile(filepath.Join(filepath.Dir(owtBin), p), filepath.Join(stage, p), 0o755))
	}
	for _, f := range []string{"README.md", "CHANGELOG.md", "docs/install.md", "keybindings/owt.conf"} {
		require.NoError(e.t, copyFile(filepath.Join(fixture.ModuleRoot(), f), filepath.Join(stage, f), 0o644))
		members = append(members, f)
	}
	mine := fmt.Sprintf("owt_%s_%s_%s.tar.gz", version, runtime.GOOS, runtime.GOARCH)
	// gzip's fastest level: its ~40 MB of programs took ~1.5 s of CPU at
	// the default one.
	out, err := exec.Command("tar", append([]string{"--use-compress-program", "gzip -1", "-cf", filepath.Join(dir, mine), "-C", stage}, members...)...).CombinedOutput()
	require.NoError(e.t, err, string(out))
	data, err := os.ReadFile(filepath.Join(dir, mine))
	require.NoError(e.t, err)
	h := sha256.Sum256(data)
	sum := hex.EncodeToString(h[:])
	if tamper {
		sum = strings.Repeat("0", 64)
	}
	var lines []string
	for _, osArch := range []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64"} {
		name := fmt.Sprintf("owt_%s_%s.tar.gz", version, osArch)
		if name == mine {
			lines = append(lines, sum+"  "+name)
		} else {
			lines = append(lines, strings.Repeat("ab", 32)+"  "+name)
		}
	}
	e.WriteFile(dir, "checksums.txt", strings.Join(lines, "\n")+"\n")
	return dir
}

// pathWithout is PATH without the directories that hold prog.
func pathWithout(path, prog string) string {
	var keep []string
	for _, d := range filepath.SplitList(path) {
		if _, err := os.Stat(filepath.Join(d, prog)); err != nil {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}
