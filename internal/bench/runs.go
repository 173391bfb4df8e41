package main

import (
	"fmt"
	"os"
	"path/filepath"
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
