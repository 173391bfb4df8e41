package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/agent"
)

var hookAB = flag.String("hook-ab", "", "with -only hook: other hook programs (owt of other builds, or an older owt's owt-hook), colon-separated, measured interleaved with this build's")

var hookRecords = flag.Int("records", 0, "with -only hook: records in the hooked agent's repository, made up to this many with copies of its record (0: the worktrees there are)")

var monitorFor = flag.Duration("monitor-for", 60*time.Second, "how long to measure the monitor's CPU with 20 busy agents (0 skips it)")

// statusFigures measures the status path: owt hook, the time from a hook
// to the session's tmux option, and the monitor's CPU with busy agents.
func statusFigures(w *world, bin, repo string) {
	// Hooks only move agents (a --no-agent shell ignores them): measure on
	// a fake claude that has finished its first turn and sits idle.
	if !w.installFakeAgent() {
		return
	}
	w.must(repo, bin, "new", "--tool", "claude", "--no-setup", "--name", "hooked", "Bench the hooks")
	defer func() { _ = w.cmd(repo, bin, "delete", "--force", "--yes", "hooked").Run() }()
	var it struct{ Name, Repo, Session, Status string }
	for deadline := time.Now().Add(20 * time.Second); it.Status != "idle"; {
		if time.Now().After(deadline) {
			fmt.Println("owt hook: the agent never got idle; no figures")
			return
		}
		time.Sleep(100 * time.Millisecond)
		out, err := w.cmd(repo, bin, "status", "hooked", "--json").Output()
		if err == nil {
			_ = json.Unmarshal(out, &it)
		}
	}
	it.Repo = repo // owt status names the worktree, not its repo
	if *hookRecords > 0 {
		padRecords(filepath.Join(w.root, "state", "owt"), it.Name, *hookRecords)
		fmt.Printf("owt hook among %d records of one repository\n", *hookRecords)
	}
	// Agents report the cwd they run in: the worktree (the default dir).
	worktree := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+".worktrees", it.Name)
	env := []string{"OWT_NAME=" + it.Name, "OWT_REPO=" + it.Repo, agentIDEnv(filepath.Join(w.root, "state", "owt"), it.Name)}
	hookBin := func(hb, event string) time.Duration {
		payload := fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":%q}`, worktree, event)
		c := w.cmd(repo, hb, "hook", "claude", event)
		c.Env = append(c.Env, env...)
		c.Stdin = strings.NewReader(payload)
		start := time.Now()
		check(c.Run())
		return time.Since(start)
	}
	prog := hookProgram(worktree, bin)
	hook := func(event string) time.Duration { return hookBin(prog, event) }
	if *hookAB != "" {
		compareHooks(append([]string{prog}, strings.Split(*hookAB, ":")...), hookBin)
	}
	// More runs than the other figures take: a hook is a few
	// milliseconds, where this machine's noise moves a median of 20 by
	// half a millisecond.
	hookRuns := max(*runs, 100)
	var changing, same []time.Duration
	for i := 0; i < hookRuns; i++ {
		// Status changes come seconds apart in a session (a prompt, a
		// question, a turn's end): let the previous one's tmux update end.
		time.Sleep(50 * time.Millisecond)
		changing = append(changing, hook([]string{"UserPromptSubmit", "Stop"}[i%2]))
	}
	hook("PreToolUse")
	for i := 0; i < hookRuns; i++ {
		same = append(same, hook("PreToolUse"))
	}
	name := filepath.Base(prog) + " hook"
	fmt.Printf("%-44s p50 %7s   (budget ≤ 10 ms; status changes each call: state write, the monitor rung to show it; the program the agent's hook settings run)\n", name+" (status changes)", ms(p50(changing)))
	fmt.Printf("%-44s p50 %7s   (budget ≤ 10 ms; status already so: no write, no tmux)\n", name+" (no change)", ms(p50(same)))

	// owt why on the agent the hooks above filled the ring of: one record,
	// the runs and the outbox read, nothing written.
	var whys []time.Duration
	for i := 0; i < *runs; i++ {
		whys = append(whys, w.time(repo, bin, "why", it.Name, "--json"))
	}
	fmt.Printf("%-44s p50 %7s   (no budget; reads the record, the runs and the outbox, writes nothing)\n", "owt why --json", ms(p50(whys)))

	var lat []time.Duration
	for i := 0; i < 10; i++ {
		lat = append(lat, w.hookToOption(repo, bin, env, it.Session, []string{"waiting", "idle"}[i%2]))
	}
	fmt.Printf("%-44s p50 %7s   (hook started → @owt-status changed, polled with show-options)\n", "hook → tmux option", ms(p50(lat)))

	if *monitorFor > 0 {
		w.monitorCPU(bin, *monitorFor)
		w.engineCPU(bin, *monitorFor/2)
	}
}

// compareHooks measures each of the hook programs progs (builds to
// compare) on the same agent, interleaved so that the machine's noise
// hits all alike: a status change each call, 50 ms apart, then none.
func compareHooks(progs []string, hook func(prog, event string) time.Duration) {
	changing := make([][]time.Duration, len(progs))
	same := make([][]time.Duration, len(progs))
	for i, k := 0, 0; i < 100; i++ {
		for j, p := range progs {
			// Each call the other event than the one before, whichever
			// program made it: every call changes the status.
			time.Sleep(50 * time.Millisecond)
			changing[j] = append(changing[j], hook(p, []string{"UserPromptSubmit", "Stop"}[k%2]))
			k++
		}
	}
	for i := 0; i < 100; i++ {
		for j, p := range progs {
			same[j] = append(same[j], hook(p, "PreToolUse"))
		}
	}
	for j, p := range progs {
		fmt.Printf("%-44s p50 %7s   (no change: p50 %s)\n", "A/B "+p+" (status changes)", ms(p50(changing[j])), ms(p50(same[j])))
	}
}

// hookProgram is the program the agent's hook settings in worktree run
// for owt (owt itself): what the agent waits for.
func hookProgram(worktree, bin string) string {
	data, err := os.ReadFile(filepath.Join(worktree, ".claude", "settings.local.json"))
	check(err)
	prog := bin
	if !strings.Contains(string(data), fmt.Sprintf("%q", agent.HookCommand(bin, "claude", "Stop"))) {
		fmt.Fprintf(os.Stderr, "the agent's hook settings do not run %s hook claude Stop:\n%s", prog, data)
		exit(1)
	}
	return prog
}

// hookToOption starts a hook that sets status st and polls the session's
// @owt-status until it shows st.
func (w *world) hookToOption(repo, bin string, env []string, session, st string) time.Duration {
	event := map[string]string{"waiting": "PermissionRequest", "idle": "Stop"}[st]
	c := w.cmd(repo, bin, "hook", "claude", event)
	c.Env = append(c.Env, env...)
	c.Stdin = strings.NewReader(`{"hook_event_name":"` + event + `"}`)
	start := time.Now()
	check(c.Start())
	defer func() { _ = c.Wait() }()
	for time.Since(start) < 5*time.Second {
		got, err := w.cmd(repo, "tmux", "show-options", "-v", "-t", "="+session+":", "@owt-status").Output()
		if err == nil && strings.TrimSpace(string(got)) == st {
			return time.Since(start)
		}
	}
	fmt.Fprintf(os.Stderr, "the tmux option never showed %s\n", st)
	return 5 * time.Second
}

// monitorCPU starts 20 fake agents that stay busy (spinner running),
// then measures the CPU the monitor (and the tmux clients it runs) uses
// over d, against the budget of 2 % of one core.
func (w *world) monitorCPU(bin string, d time.Duration) {
	if !w.installFakeAgent() {
		return
	}
	repo := w.repo("busy")
	const agents = 20
	for i := 0; i < agents; i++ {
		w.must(repo, bin, "new", "--tool", "claude", "--no-setup", "--name", fmt.Sprintf("busy-%02d", i), "!sleep 1h")
	}
	defer func() { // the figures after this one are not about busy agents
		for i := 0; i < agents; i++ {
			_ = w.cmd(repo, bin, "delete", "--force", "--yes", fmt.Sprintf("busy-%02d", i)).Run()
		}
	}()
	// The monitor keeps its lock and pid beside the server's socket.
	pidFiles, _ := filepath.Glob(filepath.Join(w.root, "tmux", "tmux-*", "*.owt-monitor.pid"))
	if len(pidFiles) != 1 {
		fmt.Println("monitor CPU: no monitor found")
		return
	}
	b, _ := os.ReadFile(pidFiles[0])
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	server, _ := w.cmd(repo, "tmux", "display-message", "-p", "#{pid}").Output()
	serverPID, _ := strconv.Atoi(strings.TrimSpace(string(server)))
	time.Sleep(2 * time.Second) // let the agents reach their spinners
	m0, s0, t0 := cpuTicks(pid), cpuTicks(serverPID), time.Now()
	time.Sleep(d)
	m1, s1, t1 := cpuTicks(pid), cpuTicks(serverPID), time.Now()
	share := func(a, b float64) float64 { return 100 * (b - a) / clockTicks / t1.Sub(t0).Seconds() }
	fmt.Printf("%-44s avg %6.2f%%   (budget ≤ 2%% of one core; monitor + its tmux clients, over %s; the tmux server used %.2f%%)\n",
		fmt.Sprintf("monitor CPU, %d busy agents", agents), share(m0, m1), d, share(s0, s1))
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat times (100 on Linux).
const clockTicks = 100.0

// cpuTicks is the CPU time of pid and its waited-for children, in ticks.
func cpuTicks(pid int) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+2:]))
	// Fields after the command: utime, stime, cutime, cstime are 14-17 of
	// stat, 12-15 here (state is 0).
	var total float64
	for _, i := range []int{11, 12, 13, 14} {
		v, _ := strconv.ParseFloat(f[i], 64)
		total += v
	}
	return total
}

// installFakeAgent builds the fake agent as "claude" on the bench's PATH
// (and the tmux server's), once.
func (w *world) installFakeAgent() bool {
	tools := filepath.Join(w.root, "tools")
	fake := filepath.Join(tools, "claude")
	if _, err := os.Stat(fake); err == nil {
		return true
	}
	check(os.MkdirAll(tools, 0o755))
	build := exec.Command("go", "build", "-o", fake, "./testdata/fakeagent")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the fake agent: %v\n%s", err, out)
		return false
	}
	// owt on the PATH of the agents' panes too, as a user has it (owt
	// doctor checks it).
	self, err := filepath.Abs(*owt)
	check(err)
	path := tools + string(os.PathListSeparator) + filepath.Dir(self) + string(os.PathListSeparator) + os.Getenv("PATH")
	w.env = append(w.env, "PATH="+path)
	w.must("", "tmux", "set-environment", "-g", "PATH", path)
	w.must("", "tmux", "set-environment", "-g", "OWT_FAKE_IDLE_NOTIFY", "0")
	w.must("", "tmux", "set-environment", "-g", "OWT_FAKE_WORK", "200ms")
	return true
}
