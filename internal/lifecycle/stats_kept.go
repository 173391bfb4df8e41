package lifecycle

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adrg/xdg"

	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/state"
)

// Kept git figures: a monitor that watches worktrees (their index, HEAD,
// refs and folders) works their figures out again when one changes and
// marks them as its own (Stats.Keeper). While it runs — it touches its
// keeper file every tick — owt list reuses them however old they are, so
// a cold list of a quiet fleet runs one git process per repository (the
// branch tips), not four per worktree. A keeper whose file stopped moving
// (the monitor stopped, or is stuck) keeps nothing: the figures age out
// after StatsTTL as any others.

// A monitor keeps the figures of its own tmux server's worktrees: its
// keeper file names that server (its socket, then its run's identity),
// so a list tells which worktrees a live monitor keeps before it has
// worked out their figures (its first look at a fleet). Figures a live
// monitor keeps that are out of date, or not worked out yet, a list
// shows as pending (with the age of the last ones) instead of working
// them out itself: at 500 agents that was 2,000 git processes a list.

// keeperStale is how long a keeper file may stand still before its
// monitor counts as gone: a few of its ticks (one a second at most).
const keeperStale = 5 * time.Second

func keeperFile(pid int) string {
	return filepath.Join(xdg.CacheHome, "owt", "keepers", strconv.Itoa(pid))
}

// keepers are the monitors that keep figures now.
type keepers struct {
	live             map[int]bool    // by pid
	sockets, servers map[string]bool // the tmux servers they keep for
}

// liveKeepers reads the keeper files: one folder read, a file each.
func liveKeepers(now time.Time) keepers {
	ks := keepers{live: map[int]bool{}, sockets: map[string]bool{}, servers: map[string]bool{}}
	dir := filepath.Dir(keeperFile(0))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ks
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if age := now.Sub(fi.ModTime()); age >= keeperStale || age <= -keeperStale {
			continue
		}
		ks.live[pid] = true
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		socket, server, _ := strings.Cut(strings.TrimSuffix(string(data), "\n"), "\n")
		if socket != "" {
			ks.sockets[socket] = true
		}
		if server != "" {
			ks.servers[server] = true
		}
	}
	return ks
}

// keeps reports whether a live monitor keeps r's figures: r is a
// worktree of the tmux server it watches (as the monitor chooses them).
func (ks keepers) keeps(r *state.Record) bool {
	if r.Creating || r.Path == "" {
		return false
	}
	return (r.Socket != "" && ks.sockets[r.Socket]) || (r.Server != "" && ks.servers[r.Server])
}

// keeping reports whether the monitor with pid keeps figures now.
func keeping(pid int, now time.Time) bool {
	if pid <= 0 {
		return false
	}
	fi, err := os.Stat(keeperFile(pid))
	if err != nil {
		return false
	}
	age := now.Sub(fi.ModTime())
	return age < keeperStale && age > -keeperStale
}

// Keeper is a monitor keeping git figures: it beats on its own every
// keeperBeat while the monitor lives (a tick of a monitor of 500 agents
// on a loaded machine outlasts keeperStale, and a list then took it for
// gone and worked out every figure itself: 1,457 git processes), and
// Stop ends it.
type Keeper struct {
	pid            int
	socket, server string
	mu             sync.Mutex
	written        bool
	done           chan struct{}
}

// keeperBeat is how often a keeper says it runs, well within keeperStale.
const keeperBeat = time.Second

// NewKeeper starts the keeper of this process, the monitor of the tmux
// server at socket whose run is server (its identity; "" unknown).
func NewKeeper(socket, server string) *Keeper {
	k := &Keeper{pid: os.Getpid(), socket: socket, server: server, done: make(chan struct{})}
	k.Beat(time.Now())
	go func() {
		t := time.NewTicker(keeperBeat)
		defer t.Stop()
		for {
			select {
			case <-k.done:
				return
			case now := <-t.C:
				k.Beat(now)
			}
		}
	}()
	return k
}

// Beat says the keeper runs: its file's time is now. The first beat
// writes the file, naming the server (a file left by an earlier process
// of the same pid names another).
func (k *Keeper) Beat(now time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	select {
	case <-k.done:
		return // stopped: its file is gone, and stays gone
	default:
	}
	p := keeperFile(k.pid)
	if k.written && os.Chtimes(p, now, now) == nil {
		return
	}
	if os.MkdirAll(filepath.Dir(p), 0o700) == nil &&
		atomicfile.WriteUnsynced(p, []byte(k.socket+"\n"+k.server+"\n")) == nil {
		k.written = true
	}
}

// Stop says the keeper keeps no more.
func (k *Keeper) Stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	select {
	case <-k.done:
	default:
		close(k.done)
	}
	_ = os.Remove(keeperFile(k.pid))
}

// KeepStats works out the git figures of recs (at most two at a time:
// the monitor's work must not crowd out the agents' own) and caches them
// as kept by k. Records whose branch or base commit did not move since
// their cached figures, unless force names them, are left as they are.
// It works out at most max and returns the records left for later.
func (k *Keeper) KeepStats(recs []*state.Record, force map[state.Key]bool, max int) (left []state.Key) {
	cache := loadStatsCache()
	stamps := stampsOf(recs)
	var which []int
	for i, r := range recs {
		st, ok := cache.Entries[r.Key()]
		sp := stamps[r]
		if !force[r.Key()] && ok && st.Keeper == k.pid && sp.tip != "" && st.Tip == sp.tip && st.BaseTip == sp.base {
			continue
		}
		if len(which) == max {
			left = append(left, r.Key())
			continue
		}
		which = append(which, i)
	}
	if len(which) == 0 {
		return left
	}
	for _, i := range which {
		// Marked before the work, so compute carries it onto the result.
		e := cache.Entries[recs[i].Key()]
		e.Keeper = k.pid
		cache.Entries[recs[i].Key()] = e
	}
	<-cache.compute(recs, stamps, which, 2, func(int, Stats) {})
	return left
}

// Adopt marks as kept by k the cached figures of recs that still hold:
// worked out at the branch's and its base's present commits, after the
// agent's last status change, and untouched says nothing in the worktree
// changed since they were (their time stays theirs: owt list shows how
// old they are). It returns the records whose figures it adopted.
func (k *Keeper) Adopt(recs []*state.Record, untouched func(r *state.Record, at time.Time) bool) map[state.Key]bool {
	cache := loadStatsCache()
	stamps := stampsOf(recs)
	out := map[state.Key]bool{}
	for _, r := range recs {
		st, ok := cache.Entries[r.Key()]
		sp := stamps[r]
		if !ok || st.Missing || sp.tip == "" || st.Tip != sp.tip || st.BaseTip != sp.base || st.At.Before(r.StatusSince) || !untouched(r, st.At) {
			continue
		}
		if st.Keeper != k.pid {
			st.Keeper = k.pid
			cache.Entries[r.Key()] = st
			cache.dirty = true
		}
		out[r.Key()] = true
	}
	if cache.dirty {
		cache.save()
	}
	return out
}

// Remark marks as kept by k the cached figures of the worktrees k
// watches (since: when it began watching each) that another process
// worked out after that (an owt list, before they were k's): k saw every
// change since, and works them out again on the next. Figures another
// running keeper keeps are left to it. It returns the worktrees whose
// figures are not in the cache at all (it was removed, or lost an
// entry): k works them out, as no list does while k keeps them.
func (k *Keeper) Remark(since map[state.Key]time.Time) (gone []state.Key) {
	cache := loadStatsCache()
	for key, from := range since {
		st, ok := cache.Entries[key]
		if !ok {
			gone = append(gone, key)
			continue
		}
		if st.Keeper == k.pid || st.At.Before(from) || keeping(st.Keeper, time.Now()) {
			continue
		}
		st.Keeper = k.pid
		cache.Entries[key] = st
		cache.dirty = true
	}
	cache.save()
	return gone
}

// StatsCacheTime is when owt list's cache of git figures was last
// written (zero when it was not).
func StatsCacheTime() time.Time {
	fi, err := os.Stat(filepath.Join(xdg.CacheHome, "owt", "stats.json"))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}
