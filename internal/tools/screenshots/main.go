// Command screenshots takes the PNGs under docs/images from the real
// demo world (make screenshots): it builds the world with
// scripts/demo.sh --world, attaches a real tmux client to it inside a
// pane of a second private tmux server of a fixed size, so that the
// outer tmux is the terminal and capture-pane sees the client's whole
// screen, popups and status bar included, presses the keys a user
// presses, captures each screen with its colours and draws it to PNG
// with freeze. It is a module of its own so that owt's build never
// needs freeze.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

type shooter struct {
	inner, outer string // the demo's tmux socket, the terminal's
	client       string // the demo client's name in the demo's tmux
	freeze       string
	out          string
	cols, rows   int
	fontSize     float64
	glyphs       glyphs
	raster       *raster
	start        time.Time
}

func main() {
	root := flag.String("root", ".", "the owt repository (scripts/demo.sh)")
	bin := flag.String("bin", "", "the folder with owt, owt-popup, owt-mcp and owt-demo-agent (default ROOT/bin)")
	freeze := flag.String("freeze", "", "the freeze program (required)")
	out := flag.String("out", "", "where the PNGs go (default ROOT/docs/images)")
	cols := flag.Int("cols", 128, "the terminal's width")
	rows := flag.Int("rows", 36, "the terminal's height")
	keep := flag.Bool("keep", false, "leave the world and its tmux servers running, to look at")
	flag.Parse()
	if *freeze == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: screenshots -freeze PATH [-root DIR] [-bin DIR] [-out DIR]")
		os.Exit(2)
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			fail(err)
		}
		return a
	}
	*root = abs(*root)
	if *bin == "" {
		*bin = filepath.Join(*root, "bin")
	}
	if *out == "" {
		*out = filepath.Join(*root, "docs", "images")
	}
	g, err := loadGlyphs()
	if err != nil {
		fail(err)
	}
	r, err := newRaster()
	if err != nil {
		fail(err)
	}
	s := &shooter{freeze: abs(*freeze), out: abs(*out), cols: *cols, rows: *rows, fontSize: 14, glyphs: g, raster: r}
	err = s.run(*root, abs(*bin), *keep)
	r.Close()
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "screenshots:", err)
	os.Exit(1)
}

// environ is this process's environment outside any tmux, with extra.
func environ(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "TMUX" || k == "TMUX_PANE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

func tmux(sock string, args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", sock}, args...)...)
	cmd.Env = environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

func (s *shooter) run(root, bin string, keep bool) error {
	s.start = time.Now()
	world, err := os.MkdirTemp("", "owt-demo.")
	if err != nil {
		return fmt.Errorf("world dir: %w", err)
	}
	s.inner = filepath.Join(world, "tmux", "tmux-"+strconv.Itoa(os.Getuid()), "default")
	s.outer = filepath.Join(world, "terminal.sock")
	defer func() {
		if keep {
			fmt.Printf("the world is in %s\n  tmux -S %s attach   (the terminal)\n", world, s.outer)
			return
		}
		_, _ = tmux(s.outer, "kill-server")
		_, _ = tmux(s.inner, "kill-server")
		// The agents and their hooks get a moment to leave the folder.
		for range 50 {
			if os.RemoveAll(world) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()

	demo := exec.Command(filepath.Join(root, "scripts", "demo.sh"), "--world", world)
	demo.Env = environ("OWT_DEMO_BIN="+bin, "OWT_DEMO_AGENT="+filepath.Join(bin, "owt-demo-agent"))
	if out, err := demo.CombinedOutput(); err != nil {
		return fmt.Errorf("scripts/demo.sh --world: %w: %s", err, out)
	}

	// The terminal: a tmux of its own with no status line, whose one pane
	// runs the demo's client (-u: UTF-8 whatever the locale says).
	conf := filepath.Join(world, "terminal.conf")
	if err := os.WriteFile(conf, []byte("set -g status off\nset -g default-terminal tmux-256color\n"), 0o644); err != nil {
		return fmt.Errorf("terminal config: %w", err)
	}
	if _, err := tmux(s.outer, "-f", conf, "new-session", "-d", "-s", "term",
		"-x", strconv.Itoa(s.cols), "-y", strconv.Itoa(s.rows),
		"env", "-u", "TMUX", "tmux", "-u", "-S", s.inner, "attach-session", "-t", "demo"); err != nil {
		return err
	}
	if err := s.wait("the demo's client", 10*time.Second, func(string) bool {
		out, _ := tmux(s.inner, "list-clients", "-F", "#{client_name}")
		s.client = strings.TrimSpace(out)
		return s.client != "" && !strings.Contains(s.client, "\n")
	}); err != nil {
		return err
	}
	// The agents at work: checkout idle with its commit, login asking,
	// cart working, and no message over the bar.
	if err := s.wait("the agents settled", 90*time.Second, func(screen string) bool {
		bar := lastLine(screen)
		return strings.HasPrefix(bar, "[") && strings.Contains(bar, "▲ login") &&
			strings.Contains(bar, "● 1") && strings.Contains(bar, "○ 1")
	}); err != nil {
		return err
	}
	fmt.Printf("the world settled in %s\n", time.Since(s.start).Round(100*time.Millisecond))
	if err := os.MkdirAll(s.out, 0o755); err != nil {
		return fmt.Errorf("images dir: %w", err)
	}

	// overview: an agent that needs you, and the bar. statusbar: the bar.
	if err := s.switchTo("shop/login", "Do you want to proceed?"); err != nil {
		return err
	}
	screen, err := s.capture()
	if err != nil {
		return err
	}
	if err := s.render("overview", screen, 0, s.rows); err != nil {
		return err
	}
	if err := s.render("statusbar", screen, s.rows-1, 1); err != nil {
		return err
	}
	// statusbar-default: the same bar on tmux's own green status-style,
	// which owt's chips must read on too; then the demo's dark bar again.
	dark, err := tmux(s.inner, "show-options", "-gv", "status-style")
	if err != nil {
		return err
	}
	if _, err := tmux(s.inner, "set-option", "-gu", "status-style"); err != nil {
		return err
	}
	if err := s.wait("the bar on tmux's default style", 10*time.Second, func(string) bool {
		now, _ := s.capture()
		return lastLine(now) != lastLine(screen)
	}); err != nil {
		return err
	}
	if screen, err = s.settled(); err != nil {
		return err
	}
	if err := s.render("statusbar-default", screen, s.rows-1, 1); err != nil {
		return err
	}
	if _, err := tmux(s.inner, "set-option", "-g", "status-style", strings.TrimSpace(dark)); err != nil {
		return err
	}

	// The popups over a working agent.
	if err := s.switchTo("shop/cart", "Working"); err != nil {
		return err
	}
	if err := s.popup("switch", "switch>", "M-s"); err != nil {
		return err
	}
	if err := s.popup("create", "What should the agent do?", "M-c", "Add a search box to the shop"); err != nil {
		return err
	}
	if err := s.popup("control", "READY TO SHIP", "M-o"); err != nil {
		return err
	}
	// Alt+m in checkout's session: its safety report, not answered.
	if err := s.switchTo("shop/checkout", "checkout"); err != nil {
		return err
	}
	if err := s.popup("merge", "Merge feat/checkout into main?", "M-m"); err != nil {
		return err
	}
	fmt.Printf("screenshots: done in %s\n", time.Since(s.start).Round(time.Second))
	return nil
}

func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return lines[len(lines)-1]
}

// capture is the terminal's screen with its colours.
func (s *shooter) capture() (string, error) {
	return tmux(s.outer, "capture-pane", "-e", "-p", "-t", "term")
}

// wait polls the terminal's plain screen until ok says yes.
func (s *shooter) wait(what string, limit time.Duration, ok func(screen string) bool) error {
	deadline := time.Now().Add(limit)
	var screen string
	for {
		screen, _ = tmux(s.outer, "capture-pane", "-p", "-t", "term")
		if ok(screen) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waited %s for %s; the screen:\n%s", limit, what, screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// settled waits until the screen stops changing (a popup draws its
// preview after its list), and returns it with its colours. Digits may
// go on changing: the popups count the seconds an agent has been in its
// state.
func (s *shooter) settled() (string, error) {
	digits := func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '0'
		}
		return r
	}
	last, err := s.capture()
	if err != nil {
		return "", err
	}
	for range 8 { // an agent's spinner behind a popup never stops
		time.Sleep(300 * time.Millisecond)
		now, err := s.capture()
		if err != nil {
			return "", err
		}
		if strings.Map(digits, now) == strings.Map(digits, last) {
			return now, nil
		}
		last = now
	}
	return last, nil
}

func (s *shooter) switchTo(session, shows string) error {
	if _, err := tmux(s.inner, "switch-client", "-c", s.client, "-t", session); err != nil {
		return err
	}
	return s.wait(session+" showing "+shows, 30*time.Second, func(screen string) bool {
		return strings.Contains(screen, shows) && strings.HasPrefix(lastLine(screen), "["+session+"]")
	})
}

// popup presses key on the client, types text into what opens, waits
// for marker, captures and renders it as name, and closes the popup
// without answering it.
func (s *shooter) popup(name, marker, key string, text ...string) error {
	if _, err := tmux(s.outer, "send-keys", "-t", "term", key); err != nil {
		return err
	}
	if err := s.wait(name+" ("+marker+")", 30*time.Second, func(screen string) bool {
		return strings.Contains(screen, marker)
	}); err != nil {
		return err
	}
	for _, t := range text {
		if _, err := tmux(s.outer, "send-keys", "-t", "term", "-l", t); err != nil {
			return err
		}
		if err := s.wait(name+" showing the typed text", 10*time.Second, func(screen string) bool {
			return strings.Contains(screen, t)
		}); err != nil {
			return err
		}
	}
	screen, err := s.settled()
	if err != nil {
		return err
	}
	if err := s.render(name, screen, 0, s.rows); err != nil {
		return err
	}
	if _, err := tmux(s.inner, "display-popup", "-C", "-c", s.client); err != nil {
		return err
	}
	return s.wait(name+" closed", 10*time.Second, func(screen string) bool {
		return !strings.Contains(screen, marker)
	})
}

// render draws rows [from, from+n) of a captured screen to NAME.png:
// the colours spelled out (normalize), freeze lays it out as SVG in the
// whole terminal's size, whatever its last lines hold, and raster draws
// that.
func (s *shooter) render(name, screen string, from, n int) error {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for len(lines) < s.rows {
		lines = append(lines, "")
	}
	lines = lines[from : from+n]
	ans := filepath.Join(os.TempDir(), "owt-screenshot-"+name+".ans")
	if err := os.WriteFile(ans, []byte(normalize(strings.Join(lines, "\n"), defaultTheme, s.glyphs.fit)), 0o644); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer func() { _ = os.Remove(ans) }()
	const pad, lineHeight = 16.0, 1.2
	fs := s.fontSize
	// A column is 0.6 of the font size in JetBrains Mono; one more
	// column of room keeps the last one whole.
	w := math.Ceil(float64(s.cols+1)*fs*0.6) + 2*pad
	// The last line's descenders need some room below the padding.
	h := math.Ceil((float64(n)+0.3)*fs*lineHeight) + 2*pad
	svg := filepath.Join(os.TempDir(), "owt-screenshot-"+name+".svg")
	defer func() { _ = os.Remove(svg) }()
	cmd := exec.Command(s.freeze, ans, "--language", "ansi", "--output", svg,
		"--background", defaultTheme.bg.String(), "--window=false", "--border.radius", "6",
		"--margin", "0", "--padding", fmt.Sprint(pad), "--font.size", fmt.Sprint(fs),
		"--line-height", fmt.Sprint(lineHeight), "--width", fmt.Sprint(w), "--height", fmt.Sprint(h))
	cmd.Env = environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("freeze %s: %w: %s", name, err, out)
	}
	doc, err := os.ReadFile(svg)
	if err != nil {
		return fmt.Errorf("freeze %s: %w", name, err)
	}
	drawn, err := s.raster.png(doc, w, h)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	png := filepath.Join(s.out, name+".png")
	if err := shrink(drawn, png); err != nil {
		return err
	}
	st, err := os.Stat(png)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	fmt.Printf("%-10s %s  %d KB  (at %s)\n", name, png, (st.Size()+1023)/1024, time.Since(s.start).Round(100*time.Millisecond))
	return nil
}
