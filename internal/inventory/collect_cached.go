package inventory

import (
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
		st, ok := cache.Entries[r.Repo+"\x00"+r.Name]
		if ok {
			items[i].applyStats(st)
		}
		if !ok || st.At.Before(r.StatusSince) {
			stale = append(stale, r)
		}
	}
	return items, stale
}

// RefreshStats computes the git figures of recs (two at a time) and caches
// them for every screen that reads the cache.
func RefreshStats(recs []*state.Record) map[string]Stats {
	cache := loadStatsCache()
	out := map[string]Stats{}
	sem := make(chan struct{}, 2)
	done := make(chan struct{})
	for _, r := range recs {
		go func(r *state.Record) {
			sem <- struct{}{}
			st := computeStats(r)
			<-sem
			cache.mu.Lock()
			cache.Entries[r.Repo+"\x00"+r.Name] = st
			out[r.Repo+"\x00"+r.Name] = st
			cache.dirty = true
			cache.mu.Unlock()
			done <- struct{}{}
		}(r)
	}
	for range recs {
		<-done
	}
	cache.mu.Lock()
	cache.save()
	cache.mu.Unlock()
	return out
}
