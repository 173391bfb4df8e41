package monitor

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
)

// Following hosts: one status stream per configured host (owt host
// stream there, over the host's shared ssh connection), its word kept in
// the host's status file, which the status bar reads. A stream that ends
// leaves the host unreachable with its agents' last status, and is
// reopened with backoff.

// Reconnect backoff of a host's stream.
const (
	followFirstRetry = time.Second
	followMaxRetry   = 30 * time.Second
)

// followers are the streams the monitor keeps, by host name.
type followers struct {
	mu      sync.Mutex
	cfgMod  time.Time
	cfgSize int64
	running map[string]*follower
	wg      sync.WaitGroup
	// notify is the user's [notify], for the hosts' agents.
	notify config.Notify
	// agedAt is when the bar last said how long unreachable hosts have
	// been silent.
	agedAt time.Time
}

type follower struct {
	address string
	cancel  context.CancelFunc
}

// followHosts starts a stream for each configured host and stops those of
// hosts no longer configured, when the user's config file changed (a
// stat per tick otherwise).
func (m *monitor) followHosts() {
	f := &m.hosts
	fi, err := os.Stat(config.UserFile())
	var mod time.Time
	var size int64
	if err == nil {
		mod, size = fi.ModTime(), fi.Size()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.running != nil && mod.Equal(f.cfgMod) && size == f.cfgSize {
		return
	}
	if f.running == nil {
		f.running = map[string]*follower{}
	}
	cfg, err := config.Load("")
	if err != nil {
		m.logf("hosts: config: %v", err) // kept as they are until it loads
		return
	}
	f.cfgMod, f.cfgSize = mod, size
	f.notify = cfg.Notify
	want := map[string]*hosts.Host{}
	all, err := hosts.All(cfg)
	if err != nil {
		m.logf("hosts: %v", err)
		return
	}
	for _, h := range all {
		want[h.Name] = h
	}
	for name, fl := range f.running {
		if h, ok := want[name]; !ok || h.Config.Address != fl.address {
			fl.cancel()
			delete(f.running, name)
			if !ok {
				_ = state.RemoveHostStatus(name)
				m.publishHosts()
			}
		}
	}
	for name, h := range want {
		if _, ok := f.running[name]; ok {
			continue
		}
		m.logf("following host %s (%s)", name, h.Config.Address)
		ctx, cancel := context.WithCancel(context.Background())
		f.running[name] = &follower{address: h.Config.Address, cancel: cancel}
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			m.follow(ctx, h)
		}()
	}
}

// staleEvery is how often the bar's "seen … ago" of an unreachable host
// is brought up to date.
const staleEvery = 30 * time.Second

// ageUnreachable republishes the bar now and then while a followed host
// is unreachable, so its "seen … ago" stays true.
func (m *monitor) ageUnreachable(now time.Time) {
	f := &m.hosts
	f.mu.Lock()
	due := len(f.running) > 0 && now.Sub(f.agedAt) >= staleEvery
	if due {
		f.agedAt = now
	}
	f.mu.Unlock()
	if !due {
		return
	}
	for _, hs := range state.HostStatuses() {
		if !hs.Reachable {
			m.publishHosts()
			return
		}
	}
}

// stopFollowing ends every stream and waits for them.
func (m *monitor) stopFollowing() {
	f := &m.hosts
	f.mu.Lock()
	for _, fl := range f.running {
		fl.cancel()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// follow keeps one host's stream open until ctx ends.
func (m *monitor) follow(ctx context.Context, h *hosts.Host) {
	retry := followFirstRetry
	down := false
	for ctx.Err() == nil {
		heard := false
		var seen map[state.Key]seenStatus // this stream's last word, by agent
		lost := 0                         // its agents owt restore would bring back, as the bar shows
		err := h.Follow(ctx, func(agents []state.RemoteAgent) {
			if ctx.Err() != nil {
				return // no longer followed: its file may be gone already
			}
			if !heard && down {
				m.logf("host %s is back", h.Name)
			}
			seen = m.notifyHostTransitions(h.Name, seen, agents)
			heard, down, retry = true, false, followFirstRetry
			if agents == nil {
				agents = []state.RemoteAgent{}
			}
			if werr := state.WriteHostStatus(state.HostStatus{Host: h.Name, At: time.Now().UTC(), Reachable: true, Agents: agents}); werr != nil {
				m.logf("host %s: %v", h.Name, werr)
			}
			m.publishHosts()
			if n := state.LostCount(agents); n != lost {
				lost = n
				if err := lifecycle.PublishLost(m.tm); err != nil { // ⟲ N counts them
					m.logf("publish restore mark: %v", err)
				}
			}
		})
		if ctx.Err() != nil {
			return
		}
		if !down {
			m.logf("host %s unreachable: %v (retrying, at most every %s)", h.Name, err, followMaxRetry)
		}
		down = true
		m.markUnreachable(h.Name, err)
		if lost > 0 {
			// Not restorable from here while it cannot be reached.
			_ = lifecycle.PublishLost(m.tm)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
		retry = min(retry*2, followMaxRetry)
	}
}

// markUnreachable keeps the host's last agents, marked unreachable.
func (m *monitor) markUnreachable(host string, why error) {
	hs := state.HostStatus{Host: host, Agents: []state.RemoteAgent{}}
	for _, s := range state.HostStatuses() {
		if s.Host == host {
			hs = s
		}
	}
	if !hs.Reachable && hs.Error == why.Error() && !hs.At.IsZero() {
		return // said already
	}
	hs.Reachable, hs.Error = false, why.Error()
	if err := state.WriteHostStatus(hs); err != nil {
		m.logf("host %s: %v", host, err)
	}
	m.publishHosts()
}

// publishHosts republishes the bar's summary after a host's word.
func (m *monitor) publishHosts() {
	if err := status.PublishSummaryLocked(m.tm); err != nil {
		m.logf("publish summary: %v", err)
	}
}

// notifyHostTransitions tells the user, as for a local agent, of each
// agent of host that changed into a status [notify] on lists since the
// stream's last line (its first line only notes them). It returns what
// it saw.
func (m *monitor) notifyHostTransitions(host string, prev map[state.Key]seenStatus, agents []state.RemoteAgent) map[state.Key]seenStatus {
	m.hosts.mu.Lock()
	cfg := m.hosts.notify
	m.hosts.mu.Unlock()
	cur := make(map[state.Key]seenStatus, len(agents))
	for _, a := range agents {
		key := state.Key{Repo: a.Repo, Name: a.Name}
		now := seenStatus{a.Status, a.Since}
		cur[key] = now
		before, known := prev[key]
		if prev == nil || !known || before.status == now.status && before.since.Equal(now.since) {
			continue
		}
		if a.Tool == "" || !m.notifier.wanted(cfg, string(a.Status)) {
			continue
		}
		r := &state.Record{Name: a.Name + "@" + host, Repo: a.Repo, Tool: a.Tool, Status: a.Status, StatusSince: a.Since}
		m.notifier.notifyText(r, cfg, "", notice{text: message(r), status: string(r.Status), event: "status", host: host})
	}
	return cur
}
