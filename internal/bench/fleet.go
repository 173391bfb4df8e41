package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/owt-tmux/owt/internal/lifecycle"
)

var (
	fleetSizes = flag.String("fleet", "10,100,500", `with -only fleet: the fleet sizes, comma-separated (each in a world of its own)`)
	fleetFor   = flag.Duration("fleet-for", 20*time.Second, "with -only fleet: how long each monitor CPU and processes-a-second figure is measured")
	fleetJobs  = flag.Int("fleet-jobs", 4, "with -only fleet: agents started at once")
	peerBin    = flag.String("peer", "", "with -only fleet: an agent-deck binary to measure beside owt on the same fleet, A/B (scripts/bench-peer.sh builds one)")
	peerMax    = flag.Int("peer-max", 0, "with -peer: the largest fleet agent-deck runs too (0: every size)")
)

// fleet is a fleet of fake agents in a repository of their own.
type fleet struct {
	w     *world
	bin   string
	repo  string
	names []string
}

func fleetName(i int) string { return fmt.Sprintf("f-%03d", i) }

// fleetFigures measures owt at each fleet size of -fleet, each in a world
// of its own: the fleet started (in parallel), then owt list --json cold
// and warm, the popups' first frames, owt hook, the monitor's CPU and the
// processes it starts a second with the agents quiet and with a fifth
// busy, and the memory of owt's processes per agent. Each figure is
// printed beside its budget (issue 36). With -peer, agent-deck runs the
// same fleet in a world of its own, and the figures it has an equivalent
// for are measured in turn with owt's.
func fleetFigures(bin string) {
	var sizes []int
	for _, s := range strings.Split(*fleetSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "-fleet: %q is not a number of agents\n", s)
			exit(2)
		}
		sizes = append(sizes, n)
	}
	fmt.Printf("owt fleet bench: sizes %v, %d CPUs, %s, %s\n", sizes, runtime.NumCPU(), loadavg(), time.Now().UTC().Format(time.RFC3339))
	procs := map[int]float64{} // quiet fleet size → monitor processes a second
	for _, n := range sizes {
		func() {
			w, done := newWorld()
			defer done()
			var peer *peerFleet
			if *peerBin != "" && (*peerMax == 0 || n <= *peerMax) {
				pw, pdone := newWorld()
				defer pdone()
				peer = startPeer(pw, *peerBin, n)
			}
			fleetSize(w, bin, n, peer, procs)
		}()
	}
}

func fleetSize(w *world, bin string, n int, peer *peerFleet, procs map[int]float64) {
	if !w.installFakeAgent() {
		return
	}
	f := &fleet{w: w, bin: bin, repo: w.repo("fleet")}
	// owt's keys bound, as a user's tmux.conf has them: owt doctor --fix,
	// which starts the usual monitor again below, checks them.
	f.w.must(f.repo, f.bin, "tmux", "init")
	start := time.Now()
	if !f.start(n) {
		return
	}
	took := time.Since(start)
	fmt.Printf("\n%d agents (%s):\n", n, loadavg())
	fmt.Printf("%-44s %8.1fs   (%.1f agents/s, %d at once; every one idle at its prompt)\n", "fleet started", took.Seconds(), float64(n)/took.Seconds(), *fleetJobs)
	if peer != nil && peer.err == "" {
		fmt.Printf("%-44s %8.1fs   (%.1f agents/s)\n", "agent-deck: fleet started", peer.took.Seconds(), float64(n)/peer.took.Seconds())
	}
	if peer != nil && peer.err != "" {
		fmt.Printf("agent-deck: %s; no figures for it\n", peer.err)
		peer = nil
	}

	// Past the monitor's first looks at the new agents (their git
	// figures among them).
	time.Sleep(3*time.Second + time.Duration(n)*20*time.Millisecond)
	f.monitorCPU("quiet", peer)
	procs[n] = f.processesPerSecond("quiet", n, procs)
	f.pss(peer)

	f.lists(peer)
	f.popups(n)
	f.hook(n)

	// A fifth busy: a spinner redrawn as the real tools do, for an hour.
	if f.busy(n/5) && (peer == nil || peer.busy(n/5)) {
		time.Sleep(3 * time.Second)
		f.monitorCPU(fmt.Sprintf("%d busy", n/5), peer)
		f.processesPerSecond(fmt.Sprintf("%d busy", n/5), n, nil)
	}
}

// start makes n agents with owt new, *fleetJobs at once, and waits until
// every one is idle at its prompt.
func (f *fleet) start(n int) bool {
	f.names = make([]string, n)
	for i := range f.names {
		f.names[i] = fleetName(i)
	}
	failed := parallel(n, *fleetJobs, func(i int) error {
		out, err := f.w.cmd(f.repo, f.bin, "new", "--tool", "claude", "--no-setup", "--template", "none", "--name", f.names[i], "Say hi").CombinedOutput()
		if err != nil {
			return fmt.Errorf("owt new %s: %v: %s", f.names[i], err, bytes.TrimSpace(out))
		}
		return nil
	})
	if failed != nil {
		fmt.Printf("fleet of %d: %v; no figures\n", n, failed)
		return false
	}
	return f.waitStatus(n, "idle", 2*time.Minute+time.Duration(n)*200*time.Millisecond)
}

// waitStatus waits until at least want agents of the fleet have status st.
func (f *fleet) waitStatus(want int, st string, d time.Duration) bool {
	got := 0
	var others []string
	for deadline := time.Now().Add(d); ; time.Sleep(time.Second) {
		var items []struct {
			Name, Status string
			Source       string `json:"status_source"`
		}
		out, err := f.w.cmd(f.repo, f.bin, "list", "--json").Output()
		if err == nil && json.Unmarshal(out, &items) == nil {
			got, others = 0, nil
			for _, it := range items {
				if it.Status == st {
					got++
				} else {
					others = append(others, fmt.Sprintf("%s %s (from %s)", it.Name, it.Status, it.Source))
				}
			}
			if got >= want {
				return true
			}
		}
		if time.Now().After(deadline) {
			fmt.Printf("fleet: %d of %d agents %s after %s; no figures\n", got, want, st, d)
			for _, o := range others[:min(len(others), 10)] {
				fmt.Printf("    %s\n", o)
			}
			return false
		}
	}
}

// busy sends k of the fleet's agents (one in five) a turn that works for
// an hour, and waits until they are working.
func (f *fleet) busy(k int) bool {
	if k == 0 {
		return false
	}
	err := parallel(k, *fleetJobs, func(i int) error {
		out, err := f.w.cmd(f.repo, f.bin, "send", f.names[i*5], "!sleep 1h").CombinedOutput()
		if err != nil {
			return fmt.Errorf("owt send %s: %v: %s", f.names[i*5], err, bytes.TrimSpace(out))
		}
		return nil
	})
	if err != nil {
		fmt.Printf("fleet: %v\n", err)
		return false
	}
	return f.waitStatus(k, "working", time.Minute)
}

// monitorCPU is the monitor's CPU with its children over *fleetFor, and
// the tmux server's; with peer, agent-deck's over the same time.
func (f *fleet) monitorCPU(what string, peer *peerFleet) {
	pid := monitorPID(f.w)
	if pid == 0 {
		fmt.Println("monitor CPU: no monitor found")
		return
	}
	server := serverPID(f.w)
	var tui int
	if peer != nil {
		tui = peer.tuiPID()
	}
	m0, s0, p0, t0 := treeTicks(pid), cpuTicks(server), treeTicks(tui), time.Now()
	time.Sleep(*fleetFor)
	m1, s1, p1, t1 := treeTicks(pid), cpuTicks(server), treeTicks(tui), time.Now()
	share := func(a, b float64) float64 { return 100 * (b - a) / clockTicks / t1.Sub(t0).Seconds() }
	fmt.Printf("%-44s avg %6.2f%%   (budget ≤ 2%% of one core; with the programs it ran, over %s; the tmux server %.2f%%)\n",
		"monitor CPU, "+what, share(m0, m1), *fleetFor, share(s0, s1))
	if peer != nil {
		if tui == 0 {
			fmt.Println("agent-deck: its TUI is not running; no CPU figure")
			return
		}
		fmt.Printf("%-44s avg %6.2f%%   (its TUI open, with the programs it ran, over the same %s; the tmux server %.2f%%)\n",
			"agent-deck CPU, "+what, share(p0, p1), *fleetFor, peer.serverShare(t1.Sub(t0)))
	}
}

// processesPerSecond counts the programs a monitor starts: the running
// monitor is stopped and one run in its place with owt --trace (a line
// per program it starts); its first looks are let pass, then it is
// counted for *fleetFor. The usual monitor is started again after. With
// quiet, the figure is compared with the smallest fleet's (budget: at 500
// quiet agents ≤ 1.2 × those at 20).
func (f *fleet) processesPerSecond(what string, n int, quiet map[int]float64) float64 {
	pid := monitorPID(f.w)
	if pid == 0 {
		fmt.Println("processes a second: no monitor found")
		return 0
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	for i := 0; i < 100 && syscall.Kill(pid, 0) == nil; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	c := f.w.cmd(f.repo, f.bin, "--trace", "monitor")
	stderr, err := c.StderrPipe()
	check(err)
	check(c.Start())
	// A new monitor first reads everything once: let it, longer the more
	// agents it reads.
	settle := 5*time.Second + time.Duration(n)*50*time.Millisecond
	counts := make(chan map[string]int, 1)
	start := time.Now()
	bySub := map[string]int{} // "tmux set-option": what they are, to say which grow
	go func() {
		byProg := map[string]int{}
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			fl := strings.Fields(sc.Text())
			if len(fl) < 4 || fl[0] != "owt" || fl[1] != "trace:" || time.Since(start) < settle {
				continue
			}
			prog := filepath.Base(fl[3])
			byProg[prog]++
			bySub[prog+" "+subcommand(fl[4:])]++
		}
		counts <- byProg
	}()
	time.Sleep(settle + *fleetFor)
	_ = c.Process.Signal(syscall.SIGTERM)
	_ = c.Wait()
	byProg := <-counts
	total := 0
	for _, k := range byProg {
		total += k
	}
	rate := float64(total) / fleetFor.Seconds()
	budget := "budget: at 500 quiet agents ≤ 1.2 × at 20"
	if quiet != nil {
		small := 0
		for size := range quiet {
			if size < n && (small == 0 || size < small) {
				small = size
			}
		}
		if small > 0 && quiet[small] > 0 {
			budget += fmt.Sprintf("; %.2f × at %d", rate/quiet[small], small)
		}
	}
	fmt.Printf("%-44s avg %6.2f/s   (%s; tmux %.2f/s, git %.2f/s, other %.2f/s; owt --trace, over %s after its first %s)\n",
		"processes the monitor starts, "+what, rate, budget,
		float64(byProg["tmux"])/fleetFor.Seconds(), float64(byProg["git"])/fleetFor.Seconds(),
		float64(total-byProg["tmux"]-byProg["git"])/fleetFor.Seconds(), *fleetFor, settle)
	subs := make([]string, 0, len(bySub))
	for k := range bySub {
		subs = append(subs, k)
	}
	sort.Slice(subs, func(i, j int) bool { return bySub[subs[i]] > bySub[subs[j]] })
	for _, k := range subs[:min(len(subs), 4)] {
		fmt.Printf("    %-40s %6.2f/s\n", k, float64(bySub[k])/fleetFor.Seconds())
	}
	f.w.must(f.repo, f.bin, "doctor", "--fix") // the usual monitor again
	return rate
}

// subcommand is the git or tmux subcommand in a traced command's
// arguments: the first that is not a global option or its value.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-C" || a == "-S" || a == "-L" || a == "-f" || a == "-c":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			return a
		}
	}
	return "?"
}

// lists times owt list --json warm (its git figures cached) and cold (the
// cache lapsed: no list for lifecycle.StatsTTL, as a user who types owt
// list now and then finds it), and --fresh; with peer, agent-deck list
// --json in turn with each warm one.
func (f *fleet) lists(peer *peerFleet) {
	f.w.time(f.repo, f.bin, "list", "--json") // fill the git figure cache
	var warm, peerList []time.Duration
	for i := 0; i < *runs; i++ {
		warm = append(warm, f.w.time(f.repo, f.bin, "list", "--json"))
		if peer != nil {
			peerList = append(peerList, peer.list())
		}
	}
	n := len(f.names)
	budget := map[int]string{100: "; budget ≤ 40 ms", 500: "; budget ≤ 120 ms"}[n]
	fmt.Printf("%-44s p50 %7s   (max %s%s)\n", "owt list --json, warm", ms(p50(warm)), ms(maxOf(warm)), budget)
	if peer != nil {
		fmt.Printf("%-44s p50 %7s   (max %s; in turn with owt's; it keeps no figure cache to lapse)\n", "agent-deck list --json", ms(p50(peerList)), ms(maxOf(peerList)))
	}
	var cold []time.Duration
	for i := 0; i < 3; i++ {
		time.Sleep(lifecycle.StatsTTL + time.Second)
		cold = append(cold, f.w.time(f.repo, f.bin, "list", "--json"))
	}
	budget = map[int]string{100: "; budget ≤ 150 ms", 500: "; budget ≤ 500 ms"}[n]
	fmt.Printf("%-44s p50 %7s   (max %s; each after %s without a list%s)\n", "owt list --json, cold", ms(p50(cold)), ms(maxOf(cold)), lifecycle.StatsTTL+time.Second, budget)
	var fresh []time.Duration
	for i := 0; i < 3 && (i == 0 || n < 500); i++ { // one at 500: seconds each
		fresh = append(fresh, f.w.time(f.repo, f.bin, "list", "--json", "--fresh"))
	}
	fmt.Printf("%-44s p50 %7s   (no budget; recomputes every git figure)\n", "owt list --json --fresh", ms(p50(fresh)))
}

// popups times the switch and control popups' first frames.
func (f *fleet) popups(n int) {
	k := 10
	if n >= 500 {
		k = 5
	}
	var frames, controls []time.Duration
	for i := 0; i < k; i++ {
		frames = append(frames, f.w.popupFrame(f.repo, f.bin, "switch", fmt.Sprintf("%d/%d", n, n)))
		controls = append(controls, f.w.popupFrame(f.repo, f.bin, "control", "q close"))
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 150 ms at 500; max %s)\n", "switch popup first frame", ms(p50(frames)), ms(maxOf(frames)))
	fmt.Printf("%-44s p50 %7s   (budget ≤ 150 ms at 500; max %s)\n", "control popup first frame", ms(p50(controls)), ms(maxOf(controls)))
}

// hook times owt hook as one idle agent's Claude runs it, among n
// records: a status change each call (50 ms apart, as turns come), then
// none. It leaves the agent idle.
func (f *fleet) hook(n int) {
	name := f.names[len(f.names)-1]
	var it struct{ Session, Path string }
	out, err := f.w.cmd(f.repo, f.bin, "status", name, "--json").Output()
	if err != nil || json.Unmarshal(out, &it) != nil {
		fmt.Printf("owt hook: owt status %s: %v; no figure\n", name, err)
		return
	}
	worktree := filepath.Join(filepath.Dir(f.repo), filepath.Base(f.repo)+".worktrees", name)
	env := []string{"OWT_NAME=" + name, "OWT_REPO=" + f.repo, "OWT_AGENT_ID=" + agentIDOf(f.w, f.repo, it.Session)}
	hook := func(event string) time.Duration {
		c := f.w.cmd(f.repo, f.bin, "hook", "claude", event)
		c.Env = append(c.Env, env...)
		c.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":%q}`, worktree, event))
		start := time.Now()
		check(c.Run())
		return time.Since(start)
	}
	var changing, same []time.Duration
	for i := 0; i < 60; i++ {
		time.Sleep(50 * time.Millisecond)
		changing = append(changing, hook([]string{"UserPromptSubmit", "Stop"}[i%2]))
	}
	hook("PreToolUse")
	for i := 0; i < 60; i++ {
		same = append(same, hook("PreToolUse"))
	}
	hook("Stop")
	fmt.Printf("%-44s p50 %7s   (budget ≤ 10 ms, flat in the records; no change: p50 %s)\n",
		fmt.Sprintf("owt hook, %d records (status changes)", n), ms(p50(changing)), ms(p50(same)))
}

// pss is the proportional set size of owt's own processes in this world
// (the monitor, any other owt program running; none stays in an agent's
// pane), per agent.
func (f *fleet) pss(peer *peerFleet) {
	dir := filepath.Dir(f.bin)
	home := "HOME=" + filepath.Join(f.w.root, "home")
	kinds := map[string]int{}
	total := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil || filepath.Dir(exe) != dir {
			continue
		}
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if !envHas(env, home) {
			continue
		}
		kinds[filepath.Base(exe)]++
		total += pssKiB(pid)
	}
	n := len(f.names)
	fmt.Printf("%-44s avg %5.2f MiB   (budget ≤ 0.5 MiB; %.1f MiB in %v)\n", "owt's processes, PSS per agent", float64(total)/1024/float64(n), float64(total)/1024, kinds)
	if peer != nil {
		k := peer.pssKiB()
		fmt.Printf("%-44s avg %5.2f MiB   (%.1f MiB: its TUI, open)\n", "agent-deck's processes, PSS per agent", float64(k)/1024/float64(n), float64(k)/1024)
	}
}

// agentIDOf is the OWT_AGENT_ID in the environment of the agent running
// in session: owt gives it to the agent's process alone, and a hook the
// bench runs as that agent must carry it.
func agentIDOf(w *world, repo, session string) string {
	out, err := w.cmd(repo, "tmux", "list-panes", "-s", "-t", "="+session+":", "-F", "#{pane_pid}").Output()
	if err != nil {
		return ""
	}
	for _, s := range strings.Fields(string(out)) {
		p, _ := strconv.Atoi(s)
		for _, pid := range tree(p) {
			env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			for _, kv := range bytes.Split(env, []byte{0}) {
				if v, ok := bytes.CutPrefix(kv, []byte("OWT_AGENT_ID=")); ok && len(v) > 0 {
					return string(v)
				}
			}
		}
	}
	return ""
}

// tree is pid and its live descendants.
func tree(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := ppid(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var all []int
	for todo := []int{pid}; len(todo) > 0; {
		p := todo[0]
		all = append(all, p)
		todo = append(todo[1:], children[p]...)
	}
	return all
}

// treeTicks is the CPU time of pid, of its live descendants and of the
// ended ones waited for, in ticks: a program's cost with what it runs.
func treeTicks(pid int) float64 {
	if pid <= 0 {
		return 0
	}
	return sumTicks(tree(pid))
}

func ppid(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

func serverPID(w *world) int {
	out, _ := w.cmd("", "tmux", "display-message", "-p", "#{pid}").Output()
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return pid
}

func sumTicks(pids []int) float64 {
	var t float64
	for _, p := range pids {
		t += cpuTicks(p)
	}
	return t
}

// loadavg is the machine's load, as uptime says it.
func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	f := strings.Fields(string(data))
	return "load " + strings.Join(f[:3], " ")
}

// parallel runs do(0..n-1), jobs at once, and returns the first error.
func parallel(n, jobs int, do func(i int) error) error {
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
	)
	next := make(chan int)
	for j := 0; j < max(jobs, 1); j++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := do(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}
