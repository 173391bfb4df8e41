package workspace

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/adrg/xdg"

	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// Item is one row of owt list: the record plus what git and tmux say now.
type Item struct {
	Name    string `json:"name"`
	Repo    string `json:"repo"`
	Branch  string `json:"branch"`
	Base    string `json:"base"`
	Path    string `json:"path"`
	Session string `json:"session"`
	Live    bool   `json:"live"`
	// Where is "here" (this tmux server), "other-server" (a tmux server
	// that still runs; owt leaves it alone) or "gone".
	Where string `json:"where"`
	// Creating is "in-progress" while owt new builds it, "interrupted"
	// when that owt new died half-way (owt doctor --fix undoes it).
	Creating     string    `json:"creating,omitempty"`
	Tool         string    `json:"tool"`
	Status       string    `json:"status"`
	StatusSince  time.Time `json:"status_since"`
	StatusSource string    `json:"status_source"`
	ExitCode     *int      `json:"exit_code,omitempty"`
	WaitingFor   string    `json:"waiting_for,omitempty"`
	TurnError    string    `json:"turn_error,omitempty"`
	Task         string    `json:"task"`
	Port         int       `json:"port"`
	CreatedAt    time.Time `json:"created_at"`
	Ahead        int       `json:"ahead"`
	Behind       int       `json:"behind"`
	Dirty        int       `json:"dirty"`
	Insertions   int       `json:"insertions"`
	Deletions    int       `json:"deletions"`
	Missing      bool      `json:"missing,omitempty"`
	// Interrupted: the user stopped its last turn (Esc); no turn finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// PR is the branch's pull request as last polled (owt pr).
	PR *state.PR `json:"pr,omitempty"`
	// NeedsYou lists the reactions that escalated to the user, each with
	// why ("ci_failed: 3 attempts used; …").
	NeedsYou []string `json:"needs_you,omitempty"`
	// Reactions are the reaction sources' memory (attempts, last cause).
	Reactions map[string]*state.Reaction `json:"reactions,omitempty"`
}

// Stats are the git figures of one worktree.
type Stats struct {
	Ahead      int       `json:"ahead"`
	Behind     int       `json:"behind"`
	Dirty      int       `json:"dirty"`
	Insertions int       `json:"insertions"`
	Deletions  int       `json:"deletions"`
	Missing    bool      `json:"missing,omitempty"`
	At         time.Time `json:"at"`
}

// statsTTL is how long computed git figures are reused. Computing them
// costs a few git processes per worktree; a list of fifty agents redrawn
// every second must not pay that each time. --fresh bypasses it.
const statsTTL = 3 * time.Second

type statsCache struct {
	mu      sync.Mutex
	path    string
	Entries map[string]Stats `json:"entries"`
	dirty   bool
}

func loadStatsCache() *statsCache {
	c := &statsCache{path: filepath.Join(xdg.CacheHome, "owt", "stats.json"), Entries: map[string]Stats{}}
	if data, err := os.ReadFile(c.path); err == nil {
		_ = json.Unmarshal(data, c)
		if c.Entries == nil {
			c.Entries = map[string]Stats{}
		}
	}
	return c
}

// save writes the cache atomically; it is only a cache, so errors are ignored.
func (c *statsCache) save() {
	if !c.dirty {
		return
	}
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(c.path), 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), "stats-*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), c.path) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// computeStats asks git about one worktree.
func computeStats(r *state.Record) Stats {
	s := Stats{At: time.Now()}
	if _, err := os.Stat(r.Path); err != nil {
		s.Missing = true
		return s
	}
	repo := git.Repo{Root: r.Repo}
	base := repo.BaseRef(r.Base, r.BaseCommit)
	s.Ahead, s.Behind, _ = repo.AheadBehind(base, git.BranchRef(r.Branch))
	if dirty, err := WorkFiles(r); err == nil {
		s.Dirty = len(dirty)
	}
	if d, err := git.Diff(r.Path, base); err == nil {
		s.Insertions, s.Deletions = d.Insertions, d.Deletions
	}
	return s
}

// ListOptions tune Collect.
type ListOptions struct {
	Fresh bool // recompute git figures even when cached ones are recent
}

// Collect turns records into list items, computing stale git figures in
// parallel and checking sessions with one tmux call.
func Collect(tm *tmux.Client, recs []*state.Record, o ListOptions) []Item {
	sessions, _ := tm.Sessions()
	loc := NewLocator(tm, sessions)
	cache := loadStatsCache()
	now := time.Now()
	items := make([]Item, len(recs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, r := range recs {
		key := r.Repo + "\x00" + r.Name
		cache.mu.Lock()
		st, ok := cache.Entries[key]
		cache.mu.Unlock()
		items[i] = itemOf(r, loc)
		if ok && !o.Fresh && now.Sub(st.At) < statsTTL && now.Sub(st.At) >= 0 {
			items[i].applyStats(st)
			continue
		}
		wg.Add(1)
		go func(i int, r *state.Record) {
			defer wg.Done()
			sem <- struct{}{}
			st := computeStats(r)
			<-sem
			items[i].applyStats(st)
			cache.mu.Lock()
			cache.Entries[key] = st
			cache.dirty = true
			cache.mu.Unlock()
		}(i, r)
	}
	wg.Wait()
	cache.save()
	return items
}

// ShellTool is what a worktree made with --no-agent shows as its tool.
const ShellTool = "shell"

// ToolOf is the tool of r as owt shows it: a shell is not an agent.
func ToolOf(r *state.Record) string {
	if r.NoAgent || r.Tool == "" {
		return ShellTool
	}
	return r.Tool
}

func itemOf(r *state.Record, loc *Locator) Item {
	where := loc.Locate(r)
	creating := ""
	switch CreateStateOf(r) {
	case InProgress:
		creating = "in-progress"
	case Interrupted:
		creating = "interrupted"
	}
	return Item{
		Creating: creating,
		Name:     r.Name, Repo: r.Repo, Branch: r.Branch, Base: r.Base, Path: r.Path,
		Session: r.Session, Live: where.Place == Here, Where: where.Place.String(),
		Tool: ToolOf(r), Status: string(r.Status), StatusSince: r.StatusSince,
		StatusSource: string(r.Source), ExitCode: r.ExitCode, Task: r.Task,
		Port: r.Port, CreatedAt: r.CreatedAt, WaitingFor: r.WaitingFor, TurnError: r.TurnError,
		PR: r.PR, NeedsYou: r.NeedsYou(), Reactions: r.Reactions,
		Interrupted: r.Interrupted && r.Status == state.Idle,
	}
}

func (it *Item) applyStats(s Stats) {
	it.Ahead, it.Behind, it.Dirty = s.Ahead, s.Behind, s.Dirty
	it.Insertions, it.Deletions, it.Missing = s.Insertions, s.Deletions, s.Missing
}

// AllRecords returns the records of every repository owt knows, by repo then age.
func AllRecords() ([]*state.Record, error) {
	stores, err := state.Stores()
	if err != nil {
		return nil, err
	}
	sort.Slice(stores, func(i, j int) bool { return stores[i].Repo < stores[j].Repo })
	var out []*state.Record
	for _, s := range stores {
		f, err := s.Peek()
		if err != nil {
			// Another repo's broken or newer file: skip it here; owt run in
			// that repo reports and recovers it.
			state.Logf("list", "skip %s: %v", s.Path, err)
			continue
		}
		out = append(out, f.Sorted()...)
	}
	return out, nil
}

// Age prints a duration the way people say it: 45s, 12m, 3h, 2d.
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}
