// Command bench prints owt's performance figures against DESIGN.md's
// budgets, on 50 worktrees, with a private tmux server and temp dirs. It
// prints figures; it does not pass or fail (run it with make bench).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/adrg/xdg"
)

var (
	owt  = flag.String("owt", "bin/owt", "owt binary to measure")
	n    = flag.Int("n", 50, "worktrees")
	runs = flag.Int("runs", 30, "repetitions of each read measurement")
	only = flag.String("only", "", `"scale": only the scale figures (-scale agents); "new": only owt new's; "engine": only the monitor's and the run engine's CPU; "remote": only the figures with agents on a loopback host over ssh (root, sshd); "hook": only owt hook's and hook → tmux option; "popup": only owt new's and the popups' first frames; "mcp": only owt new's and owt mcp's; "fleet": only the fleet figures (-fleet sizes, -peer agent-deck beside them)`)
)

type world struct {
	root string
	env  []string
}

func main() {
	flag.Parse()
	// Interrupted, the bench still ends its tmux servers and removes its
	// worlds (a fleet is hundreds of processes).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		exit(1)
	}()
	bin, err := filepath.Abs(*owt)
	check(err)
	if *only == "fleet" {
		fleetFigures(bin) // a world for each size
		return
	}
	w, done := newWorld()
	defer done()

	switch *only {
	case "scale":
		scaleFigures(w, bin)
		return
	case "remote":
		remoteFigures(w, bin)
		return
	case "hook":
		// Among as many worktrees as the full run's hooks are: the state
		// file a hook reads and writes holds them all.
		*monitorFor = 0
		repo := w.repo("app")
		for i := 0; i < *n; i++ {
			w.must(repo, bin, "new", "--no-agent", "--no-setup", fmt.Sprintf("Bench task number %d", i))
		}
		statusFigures(w, bin, repo)
		return
	case "engine":
		if w.installFakeAgent() {
			w.monitorCPU(bin, *monitorFor)
			w.engineCPU(bin, *monitorFor/2)
		}
		return
	}
	repo := w.repo("app")
	plain := w.repo("plain")

	fmt.Printf("owt bench: %d worktrees, %s\n\n", *n, time.Now().Format(time.RFC3339))

	newFigures(w, bin, repo, plain)
	switch *only {
	case "new":
		return
	case "popup":
		popupFigures(w, bin, repo)
		return
	case "mcp":
		mcpFigures(w, bin, repo)
		return
	}

	var cached, fresh []time.Duration
	w.time(repo, bin, "list", "--json") // fill the stats cache
	for i := 0; i < *runs; i++ {
		cached = append(cached, w.time(repo, bin, "list", "--json"))
	}
	for i := 0; i < 5; i++ {
		fresh = append(fresh, w.time(repo, bin, "list", "--json", "--fresh"))
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 40 ms; git figures reused while the branch, its base and the status hold, ≤ 10 s)\n", "owt list --json", ms(p50(cached)))
	fmt.Printf("%-44s p50 %7s   (no budget; recomputes git figures for %d worktrees)\n", "owt list --json --fresh", ms(p50(fresh)), *n)

	var statusLine []time.Duration
	for i := 0; i < *runs; i++ {
		statusLine = append(statusLine, w.time(repo, bin, "status-line"))
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 5 ms; the tmux bar itself reads an option: 0 processes)\n", "owt status-line", ms(p50(statusLine)))

	runFigures(w, bin, repo)

	statusFigures(w, bin, repo)

	popupFigures(w, bin, repo)

	mcpFigures(w, bin, repo)
	memoryFigures(w, bin, repo)
	sendFigures(w, bin, repo)
	ghFigures(w, bin)
	usageFigures(w.root, *n)
	// The scale and remote figures in worlds of their own, as with -only
	// scale and -only remote: 100 agents, or 20 on a host, not those
	// beside the worktrees and sessions above.
	for _, figures := range []func(*world, string){scaleFigures, remoteFigures} {
		func() {
			fw, done := newWorld()
			defer done()
			figures(fw, bin)
		}()
	}
}

// newWorld makes a bench world: a temp root with its own HOME and XDG
// folders, and a tmux server of its own on a socket there. done kills
// the server and removes the root (cleanup does it too, on a failure).
func newWorld() (*world, func()) {
	root, err := os.MkdirTemp("", "owt-bench-")
	check(err)
	w := &world{root: root}
	prev := cleanup
	done := func() {
		_ = w.cmd("", "tmux", "kill-server").Run()
		// owt's detached helpers (the monitor) see the server go and
		// exit; one still running could write its state again after the
		// root is gone. A monitor in a tick over 500 agents took more
		// than 5 s to see it, and left cache/ and state/ behind.
		for deadline := time.Now().Add(30 * time.Second); worldAlive(root) && time.Now().Before(deadline); {
			time.Sleep(50 * time.Millisecond)
		}
		_ = os.RemoveAll(root)
	}
	cleanup = func() { done(); prev() }
	for _, d := range []string{"home", "tmux", "run"} {
		check(os.MkdirAll(filepath.Join(root, d), 0o700))
	}
	for _, kv := range os.Environ() {
		k := strings.SplitN(kv, "=", 2)[0]
		if k == "TMUX" || k == "TMUX_PANE" || strings.HasPrefix(k, "XDG_") || k == "HOME" || k == "TMUX_TMPDIR" || strings.HasPrefix(k, "OWT_") {
			continue
		}
		w.env = append(w.env, kv)
	}
	w.env = append(w.env,
		"HOME="+filepath.Join(root, "home"), "TMUX_TMPDIR="+filepath.Join(root, "tmux"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"), "XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"XDG_CACHE_HOME="+filepath.Join(root, "cache"), "XDG_RUNTIME_DIR="+filepath.Join(root, "run"),
		"XDG_DATA_HOME="+filepath.Join(root, "data"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.invalid",
		"GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.invalid", "SHELL=/bin/sh")
	w.must("", "tmux", "-f", "/dev/null", "new-session", "-d", "-s", "bench")
	// The bench itself computes owt's data paths (memoryFigures).
	prevData := os.Getenv("XDG_DATA_HOME")
	check(os.Setenv("XDG_DATA_HOME", filepath.Join(root, "data")))
	xdg.Reload()
	return w, func() {
		done()
		cleanup = prev
		_ = os.Setenv("XDG_DATA_HOME", prevData)
		xdg.Reload()
	}
}

// popupFigures are the switch and control popups' first frames over the
// worktrees newFigures made.
func popupFigures(w *world, bin, repo string) {
	var frames []time.Duration
	for i := 0; i < 10; i++ {
		frames = append(frames, w.popupFrame(repo, bin, "switch", fmt.Sprintf("%d/%d", *n, *n)))
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 150 ms; max %s; from new-window to the list on screen)\n",
		fmt.Sprintf("switch popup first frame, %d agents", *n), ms(p50(frames)), ms(maxOf(frames)))

	controlFigures(w, bin, repo, *n)
}

func maxOf(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}

func (w *world) repo(name string) string {
	dir := filepath.Join(w.root, name)
	check(os.MkdirAll(dir, 0o755))
	w.must(dir, "git", "init", "-q", "-b", "main")
	check(os.WriteFile(filepath.Join(dir, "README.md"), []byte("bench\n"), 0o644))
	w.must(dir, "git", "add", ".")
	w.must(dir, "git", "commit", "-q", "-m", "init")
	return dir
}

func (w *world) cmd(dir, name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Dir = dir
	c.Env = w.env
	return c
}

func (w *world) must(dir, name string, args ...string) {
	if out, err := w.cmd(dir, name, args...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "%s %v: %v\n%s", name, args, err, out)
		exit(1)
	}
}

func (w *world) time(dir, name string, args ...string) time.Duration {
	start := time.Now()
	w.must(dir, name, args...)
	return time.Since(start)
}

func p50(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		exit(1)
	}
}

// cleanup kills the bench's tmux server and removes its temp dir; every
// way out of the bench runs it, so a failed run leaves nothing behind.
var cleanup = func() {}

func exit(code int) {
	cleanup()
	os.Exit(code)
}

// newFigures compares owt new --no-agent --no-setup with its raw parts
// (git worktree add + tmux new-session -d), interleaved in the same run
// so machine noise hits both alike.
func newFigures(w *world, bin, repo, plain string) {
	root := w.root
	// owt new vs its raw parts, interleaved in the same run so machine
	// noise hits both alike.
	var newTimes, rawTimes []time.Duration
	for i := 0; i < *n; i++ {
		newTimes = append(newTimes, w.time(repo, bin, "new", "--no-agent", "--no-setup", fmt.Sprintf("Bench task number %d", i)))
		path := filepath.Join(root, "plain.wt", fmt.Sprint(i))
		start := time.Now()
		w.must(plain, "git", "worktree", "add", "-q", "-b", fmt.Sprintf("b%d", i), path)
		w.must(plain, "tmux", "new-session", "-d", "-s", fmt.Sprintf("plain-%d", i), "-c", path)
		rawTimes = append(rawTimes, time.Since(start))
	}
	pn, pr := p50(newTimes), p50(rawTimes)
	fmt.Printf("%-44s p50 %7s   (git worktree add + tmux new-session -d: p50 %s; ratio %.2f; budget ≤ 1.50)\n",
		"owt new --no-agent --no-setup", ms(pn), ms(pr), float64(pn)/float64(pr))
}

// worldAlive reports whether a process of the bench world rooted at root
// still runs: one whose environment has the world's HOME (Linux: /proc;
// elsewhere it reports false).
func worldAlive(root string) bool {
	home := "HOME=" + filepath.Join(root, "home")
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		if env, _ := os.ReadFile(p); envHas(env, home) {
			return true
		}
	}
	return false
}

// envHas reports whether a /proc environ (NUL-separated) holds kv whole.
func envHas(env []byte, kv string) bool {
	return bytes.Contains(append(append([]byte{0}, env...), 0), []byte("\x00"+kv+"\x00"))
}
