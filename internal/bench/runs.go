package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// runFigures registers a 20-task run and times 'owt run status --json' on
// it. The run names a tmux server that does not exist (-S), so no monitor
// drives it: the figure is the read, not agents starting.
func runFigures(w *world, bin, repo string) {
	var plan strings.Builder
	plan.WriteString("[run]\nmax_concurrent = 3\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&plan, "\n[[task]]\nid = \"t%d\"\ntask = \"Task number %d\"\n", i, i)
		if i >= 5 {
			fmt.Fprintf(&plan, "depends_on = [\"t%d\", \"t%d\"]\n", i-5, i-3)
		}
	}
	file := filepath.Join(w.root, "bench-plan.toml")
	check(os.WriteFile(file, []byte(plan.String()), 0o600))
	nowhere := filepath.Join(w.root, "tmux", "no-server")
	w.must(repo, bin, "-S", nowhere, "run", "start", file, "--name", "bench")
	var times []time.Duration
	for i := 0; i < *runs; i++ {
		times = append(times, w.time(repo, bin, "run", "status", "bench", "--json"))
	}
	fmt.Printf("%-44s p50 %7s   (budget ≤ 20 ms; a registered 20-task run)\n", "owt run status --json", ms(p50(times)))
}

// engineCPU measures what the run engine adds to the monitor: a 20-task
// run in flight (max_concurrent 20; half the agents busy, half idle and
// judged each tick, with git, because settle is long), first with the run
// registered, then with the same 20 agents and the run file moved out of
// the engine's sight. The difference is the engine's share.
func (w *world) engineCPU(bin string, d time.Duration) {
	repo := w.repo("graph")
	const tasks = 20
	// The engine starts agents with the monitor's own PATH: start a
	// monitor that has the fake agent on it.
	restartMonitor(w, repo, bin)
	var plan strings.Builder
	plan.WriteString("[run]\nmax_concurrent = 20\ntool = \"claude\"\nsettle = \"1h\"\ntimeout = \"10h\"\n")
	for i := 0; i < tasks; i++ {
		text := fmt.Sprintf("Think about step %d", i) // works 200ms, then idle
		if i%2 == 0 {
			text = "!sleep 1h" // busy all along
		}
		fmt.Fprintf(&plan, "\n[[task]]\nid = \"t%02d\"\ntask = %q\n", i, text)
	}
	file := filepath.Join(w.root, "graph-plan.toml")
	check(os.WriteFile(file, []byte(plan.String()), 0o600))
	w.must(repo, bin, "run", "start", file, "--name", "graph")
	defer func() {
		for i := 0; i < tasks; i++ {
			_ = w.cmd(repo, bin, "delete", "--force", "--yes", fmt.Sprintf("graph-t%02d", i)).Run()
		}
	}()
	running := func() int {
		var v struct{ Tasks []struct{ State string } }
		out, err := w.cmd(repo, bin, "run", "status", "graph", "--json").Output()
		if err != nil || json.Unmarshal(out, &v) != nil {
			return 0
		}
		n := 0
		for _, t := range v.Tasks {
			if t.State == "running" {
				n++
			}
		}
		return n
	}
	for deadline := time.Now().Add(3 * time.Minute); running() < tasks; time.Sleep(time.Second) {
		if time.Now().After(deadline) {
			fmt.Printf("run engine CPU: only %d of %d tasks started; no figure\n", running(), tasks)
			out, _ := w.cmd(repo, bin, "run", "log", "graph").CombinedOutput()
			fmt.Fprintf(os.Stderr, "%s", out)
			return
		}
	}
	pid := monitorPID(w)
	if pid <= 0 {
		fmt.Println("run engine CPU: no monitor found")
		return
	}
	share := func() float64 {
		c0, t0 := cpuTicks(pid), time.Now()
		time.Sleep(d)
		return 100 * (cpuTicks(pid) - c0) / clockTicks / time.Since(t0).Seconds()
	}
	time.Sleep(3 * time.Second) // the idle half reaches idle
	with := share()
	runFile := filepath.Join(w.root, "state", "owt", "runs", "graph.json")
	check(os.Rename(runFile, runFile+".parked"))
	time.Sleep(2 * time.Second)
	without := share()
	check(os.Rename(runFile+".parked", runFile))
	fmt.Printf("%-44s avg %6.2f%%   (budget ≤ 1%% of one core beyond the monitor; monitor %.2f%% with the run, %.2f%% with its 20 agents alone, over %s each)\n",
		fmt.Sprintf("run engine CPU, %d-task run in flight", tasks), with-without, with, without, d)
}

// monitorPID is the pid of the bench server's monitor, 0 if none.
func monitorPID(w *world) int {
	pidFiles, _ := filepath.Glob(filepath.Join(w.root, "tmux", "tmux-*", "*.owt-monitor.pid"))
	if len(pidFiles) != 1 {
		return 0
	}
	b, _ := os.ReadFile(pidFiles[0])
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}
