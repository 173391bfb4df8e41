package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

var (
	scaleAgents = flag.Int("scale", 100, "agents of the scale figures (fake agents, 3 in 5 busy, the rest idle; 0 skips them)")
	scaleFor    = flag.Duration("scale-for", 30*time.Second, "how long to measure the monitor's CPU with the scale agents")
)

// scaleFigures starts *scaleAgents fake agents in a repository of their
// own — three in five busy (a spinner redrawn every second), the rest
// idle at their prompt — and measures what owt costs at that size: the
// monitor's CPU, the tmux processes it starts a second, hook → status
// option, owt list --json, the two popups' first frames and owt's
// resident memory (the monitor and each agent's owt _run).
func scaleFigures(w *world, bin string) {
	agents := *scaleAgents
	if agents <= 0 || !w.installFakeAgent() {
		return
	}
	repo := w.repo("scale")
	// owt's keys bound, as a user's tmux.conf has them: owt doctor --fix,
	// which starts the usual monitor again below, checks them.
	w.must(repo, bin, "tmux", "init")
	name := func(i int) string { return fmt.Sprintf("s-%03d", i) }
	busy := func(i int) bool { return i%5 < 3 }
	for i := 0; i < agents; i++ {
		task := "Say hi"
		if busy(i) {
			task = "!sleep 1h"
		}
		w.must(repo, bin, "new", "--tool", "claude", "--no-setup", "--template", "none", "--name", name(i), task)
	}
	defer func() {
		for i := 0; i < agents; i++ {
			_ = w.cmd(repo, bin, "delete", "--force", "--yes", name(i)).Run()
		}
	}()
	type item struct{ Name, Session, Status string }
	var items []item
	for deadline := time.Now().Add(2 * time.Minute); ; {
		out, err := w.cmd(repo, bin, "list", "--json").Output()
		items = nil
		if err == nil && json.Unmarshal(out, &items) == nil {
			settled := 0
			for _, it := range items {
				if it.Status == "working" || it.Status == "idle" {
					settled++
				}
			}
			if settled == agents {
				break
			}
		}
		if time.Now().After(deadline) {
			fmt.Printf("scale figures: the %d agents never all settled; no figures\n", agents)
			return
		}
		time.Sleep(time.Second)
	}
	fmt.Printf("\n%d agents (%d busy, %d idle):\n", agents, (agents*3+4)/5, agents-(agents*3+4)/5)

	monitorPID := monitorPID(w)
	if monitorPID == 0 {
		fmt.Println("scale figures: no monitor found")
		return
	}
	server, _ := w.cmd(repo, "tmux", "display-message", "-p", "#{pid}").Output()
	serverPID, _ := strconv.Atoi(strings.TrimSpace(string(server)))
	time.Sleep(3 * time.Second) // past the new agents' first looks
	m0, s0, t0 := cpuTicks(monitorPID), cpuTicks(serverPID), time.Now()
	time.Sleep(*scaleFor)
	m1, s1, t1 := cpuTicks(monitorPID), cpuTicks(serverPID), time.Now()
	share := func(a, b float64) float64 { return 100 * (b - a) / clockTicks / t1.Sub(t0).Seconds() }
	fmt.Printf("%-44s avg %6.2f%%   (budget ≤ 2%% of one core; monitor + its tmux clients, over %s; the tmux server used %.2f%%)\n",
		fmt.Sprintf("monitor CPU, %d agents", agents), share(m0, m1), *scaleFor, share(s0, s1))

	// owt's resident memory: proportional set sizes (the binary's pages
	// shared by every process running it count once) of owt's processes
	// in the agents' panes (owt _run until the agent replaces it: none
	// once the agents run) and of the monitor.
	var panePSS []int
	out, _ := w.cmd(repo, "tmux", "list-panes", "-a", "-F", "#{pane_pid} #{pane_start_command}").Output()
	kinds := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pid, start, _ := strings.Cut(l, " ")
		if !strings.Contains(start, "_run") {
			continue
		}
		n, _ := strconv.Atoi(pid)
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", n))
		kinds[strings.TrimSpace(string(comm))]++
		if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", n)); err == nil && filepath.Dir(exe) == filepath.Dir(bin) {
			panePSS = append(panePSS, pssKiB(n))
		}
	}
	total := 0
	for _, k := range panePSS {
		total += k
	}
	fmt.Printf("%-44s %d, %.1f MiB   (budget ≤ 1 MiB an agent; the panes' processes: %v; the monitor %.1f MiB)\n",
		"owt's processes in the agents' panes, PSS", len(panePSS), float64(total)/1024, kinds, float64(pssKiB(monitorPID))/1024)

	w.tmuxPerSecond(repo, bin, monitorPID, 20*time.Second)

	var idle item
	for i, it := range items {
		if !busy(i) && it.Status == "idle" {
			idle = it
		}
	}
	if idle.Name != "" {
		env := []string{"OWT_NAME=" + idle.Name, "OWT_REPO=" + repo, agentIDEnv(filepath.Join(w.root, "state", "owt"), idle.Name)}
		var lat []time.Duration
		for i := 0; i < 10; i++ {
			lat = append(lat, w.hookToOption(repo, bin, env, idle.Session, []string{"waiting", "idle"}[i%2]))
		}
		fmt.Printf("%-44s p50 %7s   (budget ≤ 300 ms; hook started → @owt-status changed)\n",
			fmt.Sprintf("hook → tmux option, %d agents", agents), ms(p50(lat)))
	}

	var lists []time.Duration
	w.time(repo, bin, "list", "--json")
	for i := 0; i < *runs; i++ {
		lists = append(lists, w.time(repo, bin, "list", "--json"))
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 40 ms)\n", fmt.Sprintf("owt list --json, %d agents", agents), ms(p50(lists)))

	var all []json.RawMessage
	out, _ = w.cmd(repo, bin, "list", "--all", "--json").Output()
	_ = json.Unmarshal(out, &all)
	var frames, controls []time.Duration
	for i := 0; i < 10; i++ {
		frames = append(frames, w.popupFrame(repo, bin, "switch", fmt.Sprintf("%d/%d", len(all), len(all))))
		controls = append(controls, w.popupFrame(repo, bin, "control", "q close"))
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 150 ms; max %s; every repository's: %d worktrees)\n",
		fmt.Sprintf("switch popup first frame, %d agents", agents), ms(p50(frames)), ms(maxOf(frames)), len(all))
	fmt.Printf("%-44s p50 %7s   (budget ≤ 150 ms; max %s)\n",
		fmt.Sprintf("control popup first frame, %d agents", agents), ms(p50(controls)), ms(maxOf(controls)))
}

// tmuxPerSecond counts the tmux processes a monitor starts: the running
// monitor is stopped, one is run in its place with owt --trace (a line
// per program it starts), for d, then stopped; the next owt command
// starts the usual one again.
func (w *world) tmuxPerSecond(repo, bin string, pid int, d time.Duration) {
	_ = syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	c := w.cmd(repo, bin, "--trace", "monitor")
	stderr, err := c.StderrPipe()
	check(err)
	check(c.Start())
	counts := make(chan [2]int, 1)
	start := time.Now()
	go func() {
		var tmuxes, others int
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) < 4 || f[0] != "owt" || f[1] != "trace:" || time.Since(start) < 3*time.Second {
				continue // its first looks read everything once
			}
			if filepath.Base(f[3]) == "tmux" {
				tmuxes++
			} else {
				others++
			}
		}
		counts <- [2]int{tmuxes, others}
	}()
	time.Sleep(3*time.Second + d)
	_ = c.Process.Signal(syscall.SIGTERM)
	_ = c.Wait()
	n := <-counts
	fmt.Printf("%-44s avg %6.2f/s   (budget: constant in the number of agents; other programs %.2f/s; over %s, owt --trace)\n",
		"tmux processes the monitor starts", float64(n[0])/d.Seconds(), float64(n[1])/d.Seconds(), d)
	w.must(repo, bin, "doctor", "--fix") // the usual monitor again
}

// pssKiB is the proportional set size of pid, in KiB.
func pssKiB(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "Pss:" {
			k, _ := strconv.Atoi(f[1])
			return k
		}
	}
	return 0
}
