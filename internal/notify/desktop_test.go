package notify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/stretchr/testify/require"
)

// fakeNotifier puts a program called name on a PATH of its own that
// records its argv, one argument a line, in a file it returns; help is
// what it prints for --help, out what it prints otherwise.
func fakeNotifier(t *testing.T, dir, name, help, out string) string {
	t.Helper()
	rec := filepath.Join(dir, name+".argv")
	script := "#!/bin/sh\nif [ \"$1\" = --help ]; then printf '%s\\n' '" + help + "'; exit 0; fi\n" +
		"for a in \"$@\"; do printf '%s\\n' \"$a\"; done > " + rec + ".tmp && mv " + rec + ".tmp " + rec + "\n" +
		"printf '%s' '" + out + "'\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755))
	return rec
}

func argvOf(t *testing.T, rec string) []string {
	t.Helper()
	var b []byte
	require.Eventually(t, func() bool {
		var err error
		b, err = os.ReadFile(rec)
		return err == nil
	}, 5*time.Second, 10*time.Millisecond)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// A hostile notice text: a shell's, AppleScript's and a terminal's
// specials.
const hostileText = "owt: a\"; do shell script \"touch /tmp/x\" --x $(id) `id` 'q' needs you"

func desktopFor(t *testing.T, goos string, deps Deps) Route {
	cfg := config.Defaults().Notify
	cfg.Desktop.Enabled = true
	r, ok := desktopRoute(cfg, deps)
	require.True(t, ok)
	ch := r.Channel.(desktopChannel)
	ch.goos = goos
	r.Channel = ch
	return r
}

// On Linux the notice is notify-send's one argument, as today.
func TestDesktopLinuxRunsNotifySendWithTheTextAsOneArgument(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	rec := fakeNotifier(t, dir, "notify-send", "Usage: notify-send [OPTION…]", "")
	r := desktopFor(t, "linux", Deps{})
	require.NoError(t, Deliver(context.Background(), r, Notice{Text: hostileText, Pane: "%1"}, time.Millisecond))
	require.Equal(t, []string{"--app-name=owt", "owt", hostileText}, argvOf(t, rec))
}

// A notify-send that fails says so (owt notify test shows it).
func TestDesktopSaysWhyNotifySendFailed(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notify-send"), []byte("#!/bin/sh\necho 'Cannot connect to the notification server' >&2\nexit 1\n"), 0o755))
	err := desktopFor(t, "linux", Deps{}).Channel.Send(context.Background(), Notice{Text: "owt: x"})
	require.ErrorContains(t, err, "Cannot connect to the notification server")
}

// Where notify-send has actions, a click on Open switches the tmux
// client to the agent's pane.
func TestDesktopLinuxClickSwitchesTheClientToTheAgent(t *testing.T) {
	tm, _ := attachedServer(t, "xterm-256color", "")
	pane, err := tm.Run("new-session", "-d", "-s", "agent", "-P", "-F", "#{pane_id}", "sleep 600")
	require.NoError(t, err)
	dir := t.TempDir()
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	rec := fakeNotifier(t, dir, "notify-send", "  -A, --action=[NAME=]Text...", "focus\n")
	r := desktopFor(t, "linux", Deps{Tmux: tm})
	require.NoError(t, Deliver(context.Background(), r, Notice{Text: hostileText, Pane: pane}, time.Millisecond))
	require.Equal(t, []string{"--app-name=owt", "--action=focus=Open", "owt", hostileText}, argvOf(t, rec))
	require.Eventually(t, func() bool {
		out, _ := tm.Run("list-clients", "-F", "#{session_name}")
		return out == "agent"
	}, 5*time.Second, 20*time.Millisecond, "the click switched the client")
}

// On macOS without terminal-notifier, osascript runs a fixed script that
// reads the text from its arguments: the text is never AppleScript.
func TestDesktopMacOSPassesTheTextToOsascriptAsAnArgument(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	rec := fakeNotifier(t, dir, "osascript", "", "")
	r := desktopFor(t, "darwin", Deps{})
	require.NoError(t, Deliver(context.Background(), r, Notice{Text: hostileText}, time.Millisecond))
	require.Equal(t, []string{"-e", "on run argv", "-e", `display notification (item 1 of argv) with title "owt"`, "-e", "end run", hostileText}, argvOf(t, rec))
}

// With terminal-notifier, the text is its -message, and a click switches
// the client: -execute holds only quoted paths and the checked pane id.
func TestDesktopMacOSUsesTerminalNotifierWhenInstalled(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	t.Setenv("__CFBundleIdentifier", "com.googlecode.iterm2")
	rec := fakeNotifier(t, dir, "terminal-notifier", "", "")
	fakeNotifier(t, dir, "osascript", "", "")
	tmuxBin := filepath.Join(dir, "tmux")
	require.NoError(t, os.WriteFile(tmuxBin, []byte("#!/bin/sh\n"), 0o755))
	tm := testTmux("/tmp/it's a socket")
	r := desktopFor(t, "darwin", Deps{Tmux: tm})
	require.NoError(t, Deliver(context.Background(), r, Notice{Text: hostileText, Pane: "%7"}, time.Millisecond))
	require.Equal(t, []string{"-title", "owt", "-message", hostileText, "-group", "owt", "-activate", "com.googlecode.iterm2",
		"-execute", "'" + tmuxBin + "' -S '/tmp/it'\\''s a socket' switch-client -t '%7'"}, argvOf(t, rec))

	// A pane that is no pane id gives no -execute.
	require.NoError(t, Deliver(context.Background(), r, Notice{Text: "owt: x", Pane: "%7; rm -rf ~"}, time.Millisecond))
	require.NotContains(t, argvOf(t, rec), "-execute")
	_, err := exec.LookPath("terminal-notifier")
	require.NoError(t, err)
}

func testTmux(socket string) *tmux.Client { return &tmux.Client{Bin: "tmux", Socket: socket} }
