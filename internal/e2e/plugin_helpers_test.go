package e2e

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// tpmDir is where Debian's tmux-plugin-manager package puts TPM.
const tpmDir = "/usr/share/tmux-plugin-manager"

// requireTPM skips nothing: CI installs TPM (.ci/run); a missing TPM is a
// broken test machine and fails loudly.
func requireTPM(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(tpmDir, "tpm")); err != nil {
		t.Fatalf("TPM is required at %s (apt-get install tmux-plugin-manager; .ci/run does it)", tpmDir)
	}
}

// pluginCheckout copies the module's working tree — committed or not, but
// without .git and bin/ — into a fresh git repository with one commit, the
// way a user's clone of the plugin looks. It returns the checkout's path.
func (e *Env) pluginCheckout(name string) string {
	e.t.Helper()
	dst := filepath.Join(e.Root, name)
	src := fixture.ModuleRoot()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == ".git" && !d.IsDir() {
			return nil // a linked worktree's .git file points at another checkout
		}
		if d.IsDir() && (rel == ".git" || rel == "bin") {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case info.Mode().IsRegular():
			return copyFile(p, target, info.Mode().Perm())
		}
		return nil // sockets, links: not part of the plugin
	})
	require.NoError(e.t, err)
	e.Git(dst, "init", "-q", "-b", "main")
	e.Git(dst, "add", "-A")
	e.Git(dst, "commit", "-q", "-m", "plugin under test")
	return dst
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// bareClone publishes a checkout as a bare repository called owt.git and
// returns its file:// URL, which TPM clones like any git URL.
func (e *Env) bareClone(checkout string) string {
	e.t.Helper()
	bare := filepath.Join(e.Root, "remote", "owt.git")
	require.NoError(e.t, os.MkdirAll(filepath.Dir(bare), 0o755))
	e.Git(e.Root, "clone", "-q", "--bare", checkout, bare)
	return "file://" + bare
}

// shareGoCaches gives the tmux server (and so owt.tmux's background build)
// the test machine's Go caches: the temp HOME would otherwise start Go from
// an empty module cache, with no network.
func (e *Env) shareGoCaches() {
	e.t.Helper()
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOFLAGS", "GOTOOLCHAIN"} {
		out, err := exec.Command("go", "env", k).Output()
		require.NoError(e.t, err)
		if v := strings.TrimSpace(string(out)); v != "" {
			e.Tmux("set-environment", "-g", k, v)
		}
	}
	e.Tmux("set-environment", "-g", "GOPROXY", "off")
}

// Type sends raw bytes to the program in the terminal, as keys typed.
func (t *Terminal) Type(keys string) {
	_, _ = t.pty.Write([]byte(keys))
}

// attach attaches a real client in a pty to session and returns the
// client's name and its terminal, to type into.
func (e *Env) attach(session string) (string, *Terminal) {
	e.t.Helper()
	before := e.clients()
	term := e.RunInTerminal(e.Root, "tmux", "attach-session", "-t", session)
	var name string
	e.Eventually(5*time.Second, "client attached", func() bool {
		for c := range e.clients() {
			if !before[c] {
				name = c
				return true
			}
		}
		return false
	})
	return name, term
}

// binding is key's binding in table as list-keys prints it, "" if none.
func (e *Env) binding(table, key string) string {
	out, err := e.TryTmux("list-keys", "-T", table, key)
	if err != nil {
		return ""
	}
	return out
}

// keysOf lists every binding of a table that runs owt.
func (e *Env) owtBindings() []string {
	var out []string
	for _, table := range []string{"root", "prefix"} {
		lines, _ := e.TryTmux("list-keys", "-T", table)
		for _, l := range strings.Split(lines, "\n") {
			if strings.Contains(l, " popup ") && strings.Contains(l, "owt") {
				out = append(out, strings.Join(strings.Fields(l), " "))
			}
		}
	}
	return out
}

// waitFor polls until f returns a non-empty string.
func (e *Env) waitFor(timeout time.Duration, what string, f func() string) string {
	e.t.Helper()
	var v string
	e.Eventually(timeout, what, func() bool { v = f(); return v != "" })
	return v
}

// pane opens a window in the harness session running argv in dir and
// returns its pane id. The window stays after argv exits, so its last
// screen can be read.
func (e *Env) pane(dir string, argv ...string) string {
	e.t.Helper()
	args := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "harness:", "-c", dir}
	return e.Tmux(append(args, argv...)...)
}

// keys sends tmux key names (Enter, Escape, Down, M-Enter) to a pane.
func (e *Env) keys(pane string, keys ...string) {
	e.t.Helper()
	e.Tmux(append([]string{"send-keys", "-t", pane}, keys...)...)
}

// typeText sends text literally to a pane.
func (e *Env) typeText(pane, text string) {
	e.t.Helper()
	e.Tmux("send-keys", "-t", pane, "-l", text)
}

// waitClosed waits for the program in pane to end; on timeout the test
// fails showing the pane's last screen.
func (e *Env) waitClosed(pane string) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !e.paneDead(pane) {
		if time.Now().After(deadline) {
			e.t.Fatalf("pane %s still open after 10s; screen:\n%s", pane, e.Capture(pane))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// paneDead reports whether the program in a pane has ended (the pane is
// gone, or kept dead by remain-on-exit).
func (e *Env) paneDead(pane string) bool {
	out, err := e.TryTmux("list-panes", "-a", "-F", "#{pane_id} #{pane_dead}")
	if err != nil {
		return true
	}
	for _, l := range strings.Split(out, "\n") {
		if id, dead, ok := strings.Cut(l, " "); ok && id == pane {
			return dead == "1"
		}
	}
	return true
}

// waitFocus waits until the huh form in pane has moved its focus to the
// field titled title (huh marks the focused field with a thick bar), as a
// person waits to see the cursor move before typing on.
func (e *Env) waitFocus(pane, title string) {
	e.t.Helper()
	e.Eventually(10*time.Second, "focus on "+title, func() bool {
		for _, l := range strings.Split(e.Capture(pane), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "┃ "+title) {
				return true
			}
		}
		return false
	})
}

// newQuietEnv is NewEnv whose cleanup, before the server's temp dir goes,
// kills the tmux server and waits for every process of its panes (agents,
// runners, shells) to end, so none writes into a directory being removed.
func newQuietEnv(t *testing.T, opts ...fixture.Option) *Env {
	e := NewEnv(t, opts...)
	t.Cleanup(e.KillServerAndWait)
	return e
}

// screenLog is what a client's terminal received, as raw bytes.
type screenLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screenLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screenLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// Reset forgets what was received so far.
func (s *screenLog) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Reset()
}

// attachRecorded attaches a real client in a pty, like attach, and also
// records everything tmux draws on it — popups included, which
// capture-pane cannot see.
func (e *Env) attachRecorded(session string) (string, *os.File, *screenLog) {
	e.t.Helper()
	return e.attachSized(session, 160, 40)
}

// attachSized attaches a recorded client (attachRecorded) whose terminal
// is cols x rows: a phone's
// ssh app (Blink, Termius) is about 50 x 25.
func (e *Env) attachSized(session string, cols, rows uint16) (string, *os.File, *screenLog) {
	e.t.Helper()
	before := e.clients()
	cmd := exec.Command("tmux", "attach-session", "-t", session)
	cmd.Dir = e.Root
	cmd.Env = e.Environ()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	require.NoError(e.t, err)
	log := &screenLog{}
	go func() { _, _ = io.Copy(log, f) }()
	e.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGHUP)
		_ = f.Close()
		_, _ = cmd.Process.Wait()
	})
	var name string
	e.Eventually(5*time.Second, "client attached", func() bool {
		for c := range e.clients() {
			if !before[c] {
				name = c
				return true
			}
		}
		return false
	})
	return name, f, log
}

// waitDrawn waits until the client's terminal received text. tmux draws
// runs of blanks as "cursor forward" (ESC [ n C); those count as spaces.
func (e *Env) waitDrawn(log *screenLog, text string) {
	e.t.Helper()
	// A popup starts a program of its own, and draws late on a loaded
	// machine; a quick one returns as soon as the text is there.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(forwardAsSpaces(log.String()), text) {
		if time.Now().After(deadline) {
			out := log.String()
			e.t.Fatalf("%q not drawn on the client after 30s; last output:\n%q", text, out[max(0, len(out)-3000):])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitNoProcess waits until no owt or owt-popup of the test runs with
// args containing words (a popup has closed, its work done). Only this
// test's world counts: other tests run the same binaries at the same time.
func (e *Env) waitNoProcess(words string) {
	e.t.Helper()
	popup := filepath.Join(filepath.Dir(owtBin), "owt-popup")
	e.Eventually(15*time.Second, "no running '"+words+"'", func() bool {
		for _, pid := range e.WorldProcesses() {
			data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
			if err != nil {
				continue
			}
			cmd := strings.ReplaceAll(string(data), "\x00", " ")
			ours := strings.HasPrefix(cmd, owtBin+" ") || strings.HasPrefix(cmd, popup+" ")
			if ours && strings.Contains(cmd, words) {
				return false
			}
		}
		return true
	})
}

var cursorForward = regexp.MustCompile(`\x1b\[([0-9]*)C`)

func forwardAsSpaces(s string) string {
	return cursorForward.ReplaceAllStringFunc(s, func(m string) string {
		n, err := strconv.Atoi(m[2 : len(m)-1])
		if err != nil {
			n = 1
		}
		return strings.Repeat(" ", n)
	})
}
