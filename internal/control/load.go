package control

import (
	"path/filepath"
	"sort"
	"time"

	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Snapshot is what one refresh read: the board's input, and the records
// whose git figures are older than their last status change.
type Snapshot struct {
	Input
	Stale []*state.Record
}

// Load reads the records of repo ("" = every repo), the runs and the
// recent events, and the sessions with one tmux call. It runs no git:
// git figures come from the cache (see Snapshot.Stale), and queue is the
// last merge queue computed, if any.
func Load(tm *tmux.Client, repo string) (Snapshot, error) {
	all, err := workspace.AllRecords()
	if err != nil {
		return Snapshot{}, err
	}
	var recs []*state.Record
	for _, r := range all {
		if repo == "" || r.Repo == repo {
			recs = append(recs, r)
		}
	}
	items, stale := lifecycle.CollectCached(tm, recs)
	items = append(items, remoteItems(repo, state.HostStatuses())...)
	store := run.DefaultStore()
	runs, _ := store.List() // a broken run file is reported by owt run; the board shows the rest
	var mine []*run.Run
	for _, r := range runs {
		if r != nil && (repo == "" || r.Repo == repo) {
			if now, err := store.NoteLost(r, time.Now()); err == nil {
				r = now // landed only while into holds what landed
			}
			mine = append(mine, r)
		}
	}
	events := runEvents(store, mine, DefaultRecent)
	for _, ev := range readRecent(recentKeep) {
		if repo == "" || ev.Repo == repo {
			events = append(events, ev)
		}
	}
	title := "all repos"
	if repo != "" {
		title = filepath.Base(repo)
	}
	return Snapshot{
		Input: Input{Title: title, Items: items, Records: recs, Runs: mine, Events: events,
			Loops:  outbox.Default().Loops(time.Now()),
			Dreams: dreams(recs, repo)},
		Stale: stale,
	}, nil
}

// dreams are the last memory consolidations of the repositories of recs
// (or of repo): small files, never the databases.
func dreams(recs []*state.Record, repo string) []memory.Last {
	roots := map[string]bool{}
	if repo != "" {
		roots[repo] = true
	}
	for _, r := range recs {
		roots[r.Repo] = true
	}
	var out []memory.Last
	for root := range roots {
		if l, ok := memory.LastOf(root); ok {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Repo < out[j].Repo })
	return out
}

// Board builds the board of a snapshot.
func (s Snapshot) Board() Board { return Build(s.Input, time.Now()) }

// Queues computes the merge queue of each repository among recs: the
// order READY TO SHIP follows and its conflict predictions. It runs git,
// so the popup calls it when the set of finished worktrees changes, not
// on every refresh.
func Queues(recs []*state.Record, open func(repo string) (*workspace.Workspace, error)) map[string]land.Queue {
	out := map[string]land.Queue{}
	seen := map[string]bool{}
	for _, r := range recs {
		if seen[r.Repo] {
			continue
		}
		seen[r.Repo] = true
		w, err := open(r.Repo)
		if err != nil {
			continue
		}
		if q, err := MergeContext(w).BuildQueue(); err == nil {
			out[r.Repo] = q
		}
	}
	return out
}
