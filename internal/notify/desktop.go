package notify

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/config"
)

// The desktop channel shows a notice on this machine's desktop: on Linux
// with notify-send, whose notice, where the notification server offers
// actions (libnotify 0.7.9 and later), has an Open action that switches
// the tmux client to the agent; on macOS with terminal-notifier when it
// is installed (a click brings the terminal forward and switches the
// client), else osascript's display notification. The notice's text is
// always one argv element, never part of a script or a shell line.
type desktopChannel struct {
	deps Deps
	goos string
	// look finds a program on PATH (exec.LookPath).
	look func(string) (string, error)
}

func desktopRoute(cfg config.Notify, deps Deps) (Route, bool) {
	if !cfg.Desktop.Enabled {
		return Route{}, false
	}
	return Route{Channel: desktopChannel{deps: deps, goos: runtime.GOOS, look: exec.LookPath}, On: on(cfg.Desktop.On, cfg)}, true
}

func (desktopChannel) Name() string { return "desktop" }

// desktopMax bounds the notice's text, in bytes.
const desktopMax = 400

func (d desktopChannel) Send(ctx context.Context, n Notice) error {
	text := plainLine(n.Text, desktopMax)
	if strings.HasPrefix(text, "-") {
		text = " " + text // text, not an option of the notifier
	}
	if d.goos == "darwin" {
		if tn, err := d.look("terminal-notifier"); err == nil {
			return d.run(ctx, exec.Command(tn, d.terminalNotifierArgs(n, text)...))
		}
		return d.run(ctx, exec.Command("osascript", osascriptArgs(text)...))
	}
	ns, err := d.look("notify-send")
	if err != nil {
		return Permanent(fmt.Errorf("notify-send is not installed: %w", err))
	}
	if !validPane.MatchString(n.Pane) || d.deps.Tmux == nil || !actionsOf(ns) {
		return d.run(ctx, exec.Command(ns, "--app-name=owt", "owt", text))
	}
	return d.clickable(exec.Command(ns, "--app-name=owt", "--action=focus=Open", "owt", text), n.Pane)
}

// run runs a notifier that returns once the notice is shown, and says
// how it ended.
func (d desktopChannel) run(ctx context.Context, cmd *exec.Cmd) error {
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if devnull, err := os.Open(os.DevNull); err == nil {
		cmd.Stdin = devnull
		defer devnull.Close()
	}
	if err := cmd.Start(); err != nil {
		return Permanent(fmt.Errorf("run %s: %w", cmd.Args[0], err))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %w: %s", cmd.Args[0], err, plainLine(stderr.String(), 200))
		}
		return nil
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("%s: %w", cmd.Args[0], ctx.Err())
	}
}

// clickWait is how long a clickable notice waits for its click;
// clickStart how long notify-send may take to fail at once (no
// notification server) before the notice counts as shown.
var (
	clickWait  = time.Hour
	clickStart = 300 * time.Millisecond
)

// clickable shows a Linux notice with an Open action and, when it is
// clicked (notify-send prints the action's name), switches the tmux
// client to pane. notify-send waits for the click: it is waited for in
// the background, at most clickWait.
func (d desktopChannel) clickable(cmd *exec.Cmd, pane string) error {
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("run notify-send: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return Permanent(fmt.Errorf("run notify-send: %w", err))
	}
	clicked := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(io.LimitReader(out, 4096))
		got := false
		for sc.Scan() {
			if strings.TrimSpace(sc.Text()) == "focus" {
				got = true
			}
		}
		clicked <- got
	}()
	done := make(chan error, 1)
	go func() {
		got := <-clicked
		done <- cmd.Wait()
		if got {
			_ = d.deps.Tmux.SwitchClientOf("", pane)
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("notify-send: %w: %s", err, plainLine(stderr.String(), 200))
		}
		return nil
	case <-time.After(clickStart):
		timer := time.AfterFunc(clickWait, func() { _ = cmd.Process.Kill() })
		go func() { <-done; timer.Stop() }()
		return nil
	}
}

// validPane is a tmux pane id, the only part of a notice that goes into
// a click's command.
var validPane = regexp.MustCompile(`^%[0-9]+$`)

// actions remembers, per notify-send, whether it has --action.
var actions sync.Map

// actionsOf reports whether the notify-send at path takes --action
// (libnotify 0.7.9 and later), as its --help says.
func actionsOf(path string) bool {
	if v, ok := actions.Load(path); ok {
		return v.(bool)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, "--help").Output()
	has := strings.Contains(string(out), "--action")
	actions.Store(path, has)
	return has
}

// osascriptArgs is osascript's argv for a notice: a fixed script that
// reads the text from its argument list, never spliced into it.
func osascriptArgs(text string) []string {
	return []string{
		"-e", "on run argv",
		"-e", `display notification (item 1 of argv) with title "owt"`,
		"-e", "end run",
		text,
	}
}

// bundleID is a macOS application's bundle identifier, as
// __CFBundleIdentifier holds the terminal's in programs started from it.
var bundleID = regexp.MustCompile(`^[A-Za-z0-9.-]+$`)

// terminalNotifierArgs is terminal-notifier's argv: the text as the
// message, the terminal brought forward on a click (-activate, the
// bundle of the terminal owt's tmux runs from) and the client switched
// to the agent's pane (-execute: terminal-notifier runs it through a
// shell, so it holds only the tmux program's and socket's paths, quoted,
// and a pane id checked to be one).
func (d desktopChannel) terminalNotifierArgs(n Notice, text string) []string {
	args := []string{"-title", "owt", "-message", text, "-group", "owt"}
	if id := os.Getenv("__CFBundleIdentifier"); bundleID.MatchString(id) {
		args = append(args, "-activate", id)
	}
	if validPane.MatchString(n.Pane) && d.deps.Tmux != nil {
		bin := d.deps.Tmux.Bin
		if p, err := d.look(bin); err == nil {
			bin = p
		}
		line := shellQuote(bin)
		if d.deps.Tmux.Socket != "" {
			line += " -S " + shellQuote(d.deps.Tmux.Socket)
		}
		args = append(args, "-execute", line+" switch-client -t "+shellQuote(n.Pane))
	}
	return args
}

// shellQuote is s as one shell word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
