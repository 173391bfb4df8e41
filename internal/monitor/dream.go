package monitor

import (
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/state"
)

// dreamer consolidates each repository's memory every [memory]
// consolidate_every while all its agents are idle, by running "owt memory
// consolidate" in the background: the monitor's tick never opens the
// database itself.
type dreamer struct {
	checked map[string]time.Time // by repository
	mu      sync.Mutex
	running map[string]bool
}

// dreamCheck is how often the monitor looks whether a repository's pass
// is due (or consolidate_every, when that is shorter).
const dreamCheck = time.Minute

func (m *monitor) dream(now time.Time) {
	d := &m.dreams
	if d.checked == nil {
		d.checked = map[string]time.Time{}
	}
	busy := map[string]bool{}
	repos := map[string]bool{}
	for _, r := range m.recs.records {
		repos[r.Repo] = true
		if r.Status == state.Working || r.Status == state.Starting || r.Status == state.Waiting {
			busy[r.Repo] = true
		}
	}
	for root := range repos {
		v := m.recs.repo(root, m.logf)
		if v.ws == nil {
			continue
		}
		every := v.ws.Config.Memory.ConsolidateEvery.Duration
		if every <= 0 || now.Sub(d.checked[root]) < min(every, dreamCheck) {
			continue
		}
		d.checked[root] = now
		if busy[root] || !memory.Exists(root) {
			continue
		}
		if last, ok := memory.LastOf(root); ok && now.Sub(last.At) < every {
			continue
		}
		d.start(root, m.logf)
	}
}

// start runs one pass for root unless one runs already.
func (d *dreamer) start(root string, logf func(string, ...any)) {
	d.mu.Lock()
	if d.running == nil {
		d.running = map[string]bool{}
	}
	if d.running[root] {
		d.mu.Unlock()
		return
	}
	d.running[root] = true
	d.mu.Unlock()
	self, err := os.Executable()
	if err != nil {
		logf("memory of %s: %v", root, err)
		d.mu.Lock()
		delete(d.running, root)
		d.mu.Unlock()
		return
	}
	cmd := exec.Command(self, "memory", "consolidate")
	cmd.Dir = root
	go func() {
		defer func() { d.mu.Lock(); delete(d.running, root); d.mu.Unlock() }()
		out, err := cmd.CombinedOutput()
		if err != nil {
			logf("memory of %s: consolidate: %v: %s", root, err, out)
			return
		}
		logf("memory of %s consolidated", root)
	}()
}
