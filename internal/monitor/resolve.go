package monitor

import (
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/resolve"
	"github.com/owt-tmux/owt/internal/state"
)

// resolves checks, each tick, the work of every agent of this server
// resolving a conflict owt handed it (owt resolve) whose turn is over and
// whose branch or status changed since it was last checked: owt's verdict
// decides READY TO SHIP. A check runs the project's checks, so it runs in
// the background, one per agent at a time; the tick never waits for it.
func (m *monitor) resolves(now time.Time) {
	for _, r := range m.recs.records {
		if r.Resolve == nil || !r.Resolve.Told || r.Socket == "" || r.Socket != m.socket {
			continue
		}
		if r.Status == state.Working || r.Status == state.Starting || r.Status == state.Waiting {
			continue // its turn is under way: checked once it is over
		}
		v := m.recs.repo(r.Repo, m.logf)
		if v.ws == nil {
			continue
		}
		key := recKey{r.Repo, r.Name}
		// A turn that ended since is checked now; else (the base may have
		// moved, the user may have committed) now and then.
		if strings.HasPrefix(r.Resolve.Seen, resolve.SeenTurn(r)+" ") && !m.checking.due(key, now) {
			continue
		}
		if !m.checking.start(key, now) {
			continue
		}
		ws, rec := v.ws, r
		go func() {
			defer m.checking.done(key)
			cur, err := ws.Get(rec.Name)
			if err != nil || cur.Resolve == nil {
				return
			}
			verdict, err := resolve.Check(ws, cur, false)
			switch {
			case err != nil:
				m.logf("resolve %s: %v", rec.Name, err)
			case verdict.Name != "" && !verdict.Pending:
				m.logf("resolve %s: %s", rec.Name, verdict.Line())
			}
		}()
	}
}

// resolveRecheck is how often a resolve whose agent did nothing since is
// checked again.
const resolveRecheck = 30 * time.Second

// inProgress is the set of agents whose resolve is being checked, and
// when each was last.
type inProgress struct {
	mu   sync.Mutex
	on   map[recKey]bool
	last map[recKey]time.Time
}

// due says the agent's resolve was not looked at for resolveRecheck.
func (p *inProgress) due(k recKey, now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return now.Sub(p.last[k]) >= resolveRecheck
}

func (p *inProgress) start(k recKey, now time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on[k] {
		return false
	}
	if p.on == nil {
		p.on, p.last = map[recKey]bool{}, map[recKey]time.Time{}
	}
	p.on[k], p.last[k] = true, now
	return true
}

func (p *inProgress) done(k recKey) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.on, k)
}
