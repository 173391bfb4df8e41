package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// peerFleet is agent-deck (github.com/asheshgoplani/agent-deck, the
// closest peer: Go, tmux, a session per agent, worktrees) running the
// same fleet of fake agents in a world of its own: its own HOME, its own
// tmux server (TMUX_TMPDIR), its TUI open in a window there. Only the
// figures it has an equivalent for are measured: list --json and the CPU
// its TUI costs while open.
type peerFleet struct {
	w     *world
	bin   string
	repo  string
	names []string
	took  time.Duration
	err   string // why there are no figures, or ""
	tui   string // the pane its TUI runs in
	s0    float64
}

// startPeer makes agent-deck's fleet of n fake agents: agent-deck add
// (each in a worktree of its own, on a branch of its own), then session
// start, *fleetJobs at once, then its TUI in a window of its server.
func startPeer(w *world, bin string, n int) *peerFleet {
	p := &peerFleet{w: w, bin: bin}
	if abs, err := filepath.Abs(bin); err == nil {
		p.bin = abs
	}
	if !w.installFakeAgent() {
		p.err = "the fake agent did not build"
		return p
	}
	// No update checks (no network here).
	conf := filepath.Join(w.root, "home", ".agent-deck", "config.toml")
	check(os.MkdirAll(filepath.Dir(conf), 0o700))
	check(os.WriteFile(conf, []byte("[updates]\ncheck_enabled = false\nnotify_in_cli = false\n"), 0o600))
	// Its Claude hooks, as its TUI offers to install them on first start
	// (status from hooks, as owt's): in ~/.claude/settings.json, which the
	// fake claude reads as Claude Code does; they run agent-deck, from
	// the agents' PATH.
	check(os.Symlink(p.bin, filepath.Join(w.root, "tools", "agent-deck")))
	if out, err := w.cmd("", p.bin, "hooks", "install").CombinedOutput(); err != nil {
		p.err = fmt.Sprintf("agent-deck hooks install: %v: %s", err, firstLine(out))
		return p
	}
	p.repo = w.repo("fleet")
	p.names = make([]string, n)
	for i := range p.names {
		p.names[i] = fleetName(i)
	}
	start := time.Now()
	// One add at a time: two at once in a repository can fail in git
	// ("failed to create worktree", seen at 100); the starts go in parallel.
	var err error
	for _, name := range p.names {
		if out, e := w.cmd(p.repo, p.bin, "add", "-t", name, "-c", "claude", "-w", name, "-b", "--no-parent", "--quiet", p.repo).CombinedOutput(); e != nil {
			err = fmt.Errorf("agent-deck add %s: %v: %s", name, e, firstLine(out))
			break
		}
	}
	if err == nil {
		err = parallel(n, *fleetJobs, func(i int) error {
			if out, err := w.cmd(p.repo, p.bin, "session", "start", p.names[i], "--quiet").CombinedOutput(); err != nil {
				return fmt.Errorf("agent-deck session start %s: %v: %s", p.names[i], err, firstLine(out))
			}
			return nil
		})
	}
	if err != nil {
		p.err = err.Error()
		return p
	}
	if !p.waitStatus(n, func(st string) bool { return st != "starting" && st != "running" }, 2*time.Minute+time.Duration(n)*200*time.Millisecond) {
		p.err = "its sessions never all settled"
		return p
	}
	p.took = time.Since(start)
	// Its TUI runs outside tmux (it refuses to start in a tmux pane unless
	// told): in a pane here, but with no TMUX in its environment, as in a
	// terminal of its own.
	out, err := w.cmd(p.repo, "tmux", "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "bench:", "-c", p.repo,
		"env", "-u", "TMUX", "-u", "TMUX_PANE", p.bin).Output()
	if err != nil {
		p.err = fmt.Sprintf("its TUI did not start: %v", err)
		return p
	}
	p.tui = strings.TrimSpace(string(out))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		screen, _ := w.cmd(p.repo, "tmux", "capture-pane", "-p", "-t", p.tui).Output()
		if bytes.Contains(screen, []byte("SESSIONS")) {
			break
		}
		if time.Now().After(deadline) {
			p.err = fmt.Sprintf("its TUI never showed its sessions:\n%s", screen)
			return p
		}
	}
	time.Sleep(5 * time.Second) // its first look at every session
	return p
}

// waitStatus waits until want sessions have a status ok says is settled.
func (p *peerFleet) waitStatus(want int, ok func(string) bool, d time.Duration) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(time.Second) {
		var items []struct{ Status string }
		out, err := p.w.cmd(p.repo, p.bin, "list", "--json").Output()
		got := 0
		if err == nil && json.Unmarshal(out, &items) == nil {
			for _, it := range items {
				if ok(it.Status) {
					got++
				}
			}
			if got >= want {
				return true
			}
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// list times agent-deck list --json once.
func (p *peerFleet) list() time.Duration {
	return p.w.time(p.repo, p.bin, "list", "--json")
}

// busy sends k of its agents (one in five) a turn that works for an hour:
// at once (--no-wait), for they are idle at their prompt (it otherwise
// waits for a readiness it did not see in the fake claude's screen).
func (p *peerFleet) busy(k int) bool {
	err := parallel(k, *fleetJobs, func(i int) error {
		name := p.names[i*5]
		if out, err := p.w.cmd(p.repo, p.bin, "session", "send", "--no-wait", name, "!sleep 1h").CombinedOutput(); err != nil {
			return fmt.Errorf("agent-deck session send %s: %v: %s", name, err, firstLine(out))
		}
		return nil
	})
	if err != nil {
		fmt.Printf("agent-deck: %v\n", err)
		return false
	}
	return p.waitStatus(k, func(st string) bool { return st == "running" }, time.Minute)
}

// tuiPID is the process of its TUI (0 if it is not running); it also
// starts the count of its tmux server's CPU (serverShare).
func (p *peerFleet) tuiPID() int {
	if p.tui == "" {
		return 0
	}
	out, err := p.w.cmd(p.repo, "tmux", "display-message", "-p", "-t", p.tui, "#{pane_pid}").Output()
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	p.s0 = cpuTicks(serverPID(p.w))
	return pid
}

// serverShare is its tmux server's CPU share since tuiPID was called.
func (p *peerFleet) serverShare(d time.Duration) float64 {
	return 100 * (cpuTicks(serverPID(p.w)) - p.s0) / clockTicks / d.Seconds()
}

// pssKiB is the proportional set size of its own processes: its TUI (the
// programs it runs are tmux's).
func (p *peerFleet) pssKiB() int {
	if pid := p.tuiPID(); pid > 0 {
		return pssKiB(pid)
	}
	return 0
}

func firstLine(b []byte) string {
	l, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	return string(l)
}
