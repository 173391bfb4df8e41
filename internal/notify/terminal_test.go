package notify

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/stretchr/testify/require"
)

// Each terminal of the guide's table is known by its TERM or by what it
// answers tmux; any other is not sent a sequence it might print.
func TestAutoKnowsTheTerminalsThatShowNotices(t *testing.T) {
	for _, c := range []struct{ name, typ, want string }{
		{"xterm-256color", "iTerm2 3.5.0", "9"},
		{"xterm-256color", "WezTerm 20240203-110809-5046fc22", "9"},
		{"wezterm", "", "9"},
		{"xterm-ghostty", "", "9"},
		{"xterm-256color", "ghostty 1.1.0", "9"},
		{"xterm-kitty", "", "99"},
		{"xterm-256color", "kitty(0.38.1)", "99"},
		{"foot", "", "777"},
		{"xterm-256color", "foot(1.20.0)", "777"},
		{"rxvt-unicode-256color", "", "777"},
		{"xterm-256color", "XTerm(392)", ""},
		{"screen-256color", "", ""},
		{"", "", ""},
	} {
		require.Equal(t, c.want, TerminalOSC(c.name, c.typ), "%s / %s", c.name, c.typ)
	}
}

// A hostile agent name cannot end the sequence early or drive the
// terminal: escapes and control characters go, the text is bounded.
func TestOSCSequencesCarryTheTextInert(t *testing.T) {
	text := "owt: a\x07\x1b\\\x1b]0;PWNED\x07\x9c\r\nb needs you"
	require.Equal(t, "\x1b]9;owt: a b needs you\a", string(OSCSequence("9", text)))
	require.Equal(t, "\x1b]777;notify;owt;a b needs you\a", string(OSCSequence("777", text)))
	require.Equal(t, "\x1b]99;;owt: a b needs you\x1b\\", string(OSCSequence("99", text)))
	long := OSCSequence("9", "owt: "+strings.Repeat("é", 500))
	require.LessOrEqual(t, len(long), oscMax+len("\x1b]9;\a")+len(" …"))
	require.True(t, strings.HasSuffix(string(long), " …\a"))
}

// ptyLog is what a client's terminal received.
type ptyLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *ptyLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *ptyLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// attachedServer starts a private tmux server with a real client
// attached in a pty whose TERM is term, and returns the server and what
// the client's terminal receives. A termType not "" is the terminal's
// answer to tmux's question which terminal it is (XTVERSION).
func attachedServer(t *testing.T, term, termType string) (*tmux.Client, *ptyLog) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	sock := filepath.Join(t.TempDir(), "s")
	tm := &tmux.Client{Bin: "tmux", Socket: sock}
	out, err := exec.Command("tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "w", "sleep 600").CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	cmd := exec.Command("tmux", "-S", sock, "attach-session", "-t", "w")
	cmd.Env = []string{"TERM=" + term, "PATH=/usr/bin:/bin", "HOME=" + t.TempDir()}
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	require.NoError(t, err)
	log := &ptyLog{}
	go func() { _, _ = io.Copy(log, f) }()
	if termType != "" {
		require.Eventually(t, func() bool { return strings.Contains(log.String(), "\x1b[>q") }, 5*time.Second, 20*time.Millisecond)
		_, err := f.Write([]byte("\x1bP>|" + termType + "\x1b\\"))
		require.NoError(t, err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = f.Close(); _, _ = cmd.Process.Wait() })
	require.Eventually(t, func() bool {
		cs, _ := tm.ClientTerms()
		return len(cs) == 1 && cs[0].TTY != "" && (termType == "" || cs[0].TermType != "")
	}, 5*time.Second, 20*time.Millisecond)
	return tm, log
}

// The notice reaches a real client's terminal as the raw sequence, in
// one piece, without passthrough; with osc = "auto" only a terminal
// known to show it gets one.
func TestTerminalChannelWritesToEveryClientsTerminal(t *testing.T) {
	tm, log := attachedServer(t, "xterm-256color", "")
	cfg := config.Defaults().Notify
	cfg.Terminal.OSC = "777"
	r, ok := terminalRoute(cfg, Deps{Tmux: tm})
	require.True(t, ok)
	require.NoError(t, Deliver(context.Background(), r, Notice{Text: "owt: a\x1b[2J needs you\x1b]0;x\a"}, time.Millisecond))
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "\x1b]777;notify;owt;a needs you\a") }, 5*time.Second, 20*time.Millisecond)

	cfg.Terminal.OSC = "auto"
	r, _ = terminalRoute(cfg, Deps{Tmux: tm})
	err := Deliver(context.Background(), r, Notice{Text: "owt: b needs you"}, time.Millisecond)
	require.ErrorIs(t, err, ErrNoTerminal, "xterm is not known to show notices")
	require.NotContains(t, log.String(), "b needs you")

	cfg.Terminal.OSC = "off"
	_, ok = terminalRoute(cfg, Deps{Tmux: tm})
	require.False(t, ok)
}

// osc = "auto" sends a known terminal its own sequence, known by what it
// answers tmux (here foot, over an xterm TERM as on ssh).
func TestTerminalAutoSendsAKnownTerminalItsSequence(t *testing.T) {
	tm, log := attachedServer(t, "xterm-256color", "foot(1.20.0)")
	cfg := config.Defaults().Notify
	r, ok := terminalRoute(cfg, Deps{Tmux: tm})
	require.True(t, ok)
	require.NoError(t, Deliver(context.Background(), r, Notice{Text: "owt: c finished its turn"}, time.Millisecond))
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "\x1b]777;notify;owt;c finished its turn\a") }, 5*time.Second, 20*time.Millisecond, "%q", log.String())
}

// With no tmux server there is no client to tell: skipped, no failure.
func TestTerminalWithoutAServerIsSkipped(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	cfg := config.Defaults().Notify
	r, ok := terminalRoute(cfg, Deps{Tmux: &tmux.Client{Bin: "tmux", Socket: filepath.Join(t.TempDir(), "none")}})
	require.True(t, ok)
	require.ErrorIs(t, Deliver(context.Background(), r, Notice{Text: "owt: x"}, time.Millisecond), ErrSkipped)
}
