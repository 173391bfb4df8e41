package lifecycle

import (
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// CollectWithin is Collect for screens that must show up at once (the
// switch popup): git figures older than the cache's lifetime that no live
// monitor keeps are recomputed in the background, and those not ready after wait keep their last cached
// values (zero when never computed). The recomputed figures still land in
// the cache when they finish, for the next caller.
func CollectWithin(tm *tmux.Client, recs []*state.Record, wait time.Duration) []Item {
	sessions, _ := tm.Sessions()
	loc := workspace.NewLocator(tm, sessions)
	cache := loadStatsCache()
	stamps := stampsOf(recs)
	now := time.Now()
	ks := liveKeepers(now)
	items := make([]Item, len(recs))
	var (
		mu    sync.Mutex
		stale []int
	)
	for i, r := range recs {
		items[i] = itemOf(r, loc)
		st, ok := cache.Entries[r.Key()]
		switch {
		case ok && st.fresh(r, stamps[r], now, ks):
			items[i].applyStats(st)
		case ks.keeps(r) && stamps[r].tip != "":
			items[i].pending(st, ok) // the monitor works them out
		default:
			if ok {
				items[i].applyStats(st)
			}
			stale = append(stale, i)
		}
	}
	// Two at a time: the picker drawing its first frame needs the CPU more
	// than the figures do.
	done := cache.compute(recs, stamps, stale, 2, func(i int, st Stats) {
		mu.Lock()
		items[i].applyStats(st)
		mu.Unlock()
	})
	select {
	case <-done:
	case <-time.After(wait):
	}
	mu.Lock()
	out := append([]Item(nil), items...)
	mu.Unlock()
	checkResolves(out)
	return out
}

// statusRank orders agents for people: the ones that need you first, then
// finished turns waiting for review, then the busy, then the gone.
func statusRank(s string) int {
	switch state.Status(s) {
	case state.Waiting, state.Limited:
		return 0
	case state.Idle:
		return 1
	case state.Working:
		return 2
	case state.Starting:
		return 3
	case state.Exited:
		return 4
	}
	return 5
}

// SortForPicker orders items: agents that need you first, then by status,
// most recent change first, then by repo and name.
func SortForPicker(items []Item) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if ra, rb := statusRank(a.Status), statusRank(b.Status); ra != rb {
			return ra < rb
		}
		if !a.StatusSince.Equal(b.StatusSince) {
			return a.StatusSince.After(b.StatusSince)
		}
		if a.Repo != b.Repo {
			return a.Repo < b.Repo
		}
		return a.Name < b.Name
	})
}

// RecordHere returns the record of the worktree the user is in: the one
// whose tmux session is sessionName, else the one whose folder holds dir.
func RecordHere(recs []*state.Record, sessionName, dir string) *state.Record {
	for _, r := range recs {
		if sessionName != "" && r.Session == sessionName {
			return r
		}
	}
	if dir == "" {
		return nil
	}
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	for _, r := range recs {
		if dir == r.Path || strings.HasPrefix(dir, r.Path+string(filepath.Separator)) {
			return r
		}
	}
	return nil
}
