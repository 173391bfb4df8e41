package lifecycle

import (
	"sync"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// CollectCached is Collect for screens redrawn every second (the control
// popup): one tmux call for the sessions and the git figures last cached,
// never a git process. Stale says which items' figures predate their
// agent's last status change (or were never computed): RefreshStats brings
// those up to date, once per change rather than once per redraw.
func CollectCached(tm *tmux.Client, recs []*state.Record) (items []Item, stale []*state.Record) {
	sessions, _ := tm.Sessions()
	loc := workspace.NewLocator(tm, sessions)
	cache := loadStatsCache()
	items = make([]Item, len(recs))
	for i, r := range recs {
		items[i] = itemOf(r, loc)
		st, ok := cache.Entries[r.Key()]
		if ok {
			items[i].applyStats(st)
		}
		if !ok || st.At.Before(r.StatusSince) {
			stale = append(stale, r)
		}
	}
	addUsage(items)
	checkResolves(items)
	return items, stale
}

// RefreshStats computes the git figures of recs (two at a time) and caches
// them for every screen that reads the cache.
func RefreshStats(recs []*state.Record) map[state.Key]Stats {
	cache := loadStatsCache()
	out := map[state.Key]Stats{}
	var mu sync.Mutex
	all := make([]int, len(recs))
	for i := range all {
		all[i] = i
	}
	<-cache.compute(recs, stampsOf(recs), all, 2, func(i int, st Stats) {
		mu.Lock()
		out[recs[i].Key()] = st
		mu.Unlock()
	})
	return out
}

// compute works out the git figures of recs[i] for each i of which, at
// most limit at a time (git is the CPU the screen drawing them needs
// too), hands each to got (from its own goroutine) and keeps it in the
// cache; the channel closes once all are in and the cache is saved.
func (c *statsCache) compute(recs []*state.Record, stamps map[*state.Record]stamp, which []int, limit int, got func(i int, st Stats)) <-chan struct{} {
	done := make(chan struct{})
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for _, i := range which {
		r := recs[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			st := computeStats(r, stamps[r])
			<-sem
			c.mu.Lock()
			if old, ok := c.Entries[r.Key()]; ok && keeping(old.Keeper, st.At) {
				// Its monitor still watches: what changes from now on, it
				// works out again.
				st.Keeper = old.Keeper
			}
			c.mu.Unlock()
			got(i, st)
			c.mu.Lock()
			c.Entries[r.Key()] = st
			c.dirty = true
			c.mu.Unlock()
		}()
	}
	go func() {
		wg.Wait()
		c.mu.Lock()
		c.save()
		c.mu.Unlock()
		close(done)
	}()
	return done
}
