// The list: what owt list, the picker and the control popup show of every
// worktree: each record with where its session lives, how its branch
// stands against its base (ahead, behind, dirty, diff size) and a
// short-lived cache of those git figures so a redraw runs no git.

package lifecycle

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/adrg/xdg"
	"github.com/gofrs/flock"

	"github.com/owt-tmux/owt/internal/atomicfile"
	"github.com/owt-tmux/owt/internal/git"

	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/usage"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Item is one row of owt list: the record plus what git and tmux say now.
type Item struct {
	Name string `json:"name"`
	// Host is the configured host the agent runs on ([hosts.NAME]); ""
	// is this machine.
	Host string `json:"host"`
	// Unreachable: its host did not answer; Status is the last one owt
	// saw there, at SeenAt. Nothing about the agent is known to be over.
	Unreachable bool       `json:"unreachable,omitempty"`
	SeenAt      *time.Time `json:"seen_at,omitempty"`
	Repo        string     `json:"repo"`
	Branch      string     `json:"branch"`
	Base        string     `json:"base"`
	Path        string     `json:"path"`
	// InPlace: the agent works in the user's own checkout (Path), not in
	// a worktree of its own.
	InPlace bool   `json:"in_place"`
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
	// Limit is the usage limit of a limited agent: its words, and when it
	// resets when the tool said.
	Limit     *state.Limit        `json:"limit,omitempty"`
	TurnError untrusted.Untrusted `json:"turn_error,omitzero"`
	// SetupFailed are the steps of the worktree's dependency install and
	// setup commands that failed, with why.
	SetupFailed []string            `json:"setup_failed,omitempty"`
	Task        untrusted.Untrusted `json:"task"`
	Port        int                 `json:"port"`
	CreatedAt   time.Time           `json:"created_at"`
	// Life is the agent's own id (state.Record.Life).
	Life       string `json:"life,omitempty"`
	Ahead      int    `json:"ahead"`
	Behind     int    `json:"behind"`
	Dirty      int    `json:"dirty"`
	Insertions int    `json:"insertions"`
	Deletions  int    `json:"deletions"`
	Missing    bool   `json:"missing,omitempty"`
	// FiguresAt is when the git figures above were worked out (by this
	// list, an earlier one, or the monitor that watches the worktree).
	FiguresAt *time.Time `json:"figures_at,omitempty"`
	// FiguresPending: the monitor that watches the worktree is working
	// its figures out again (the branch, its base or the agent's status
	// moved since they were, or it has not yet looked at the worktree);
	// those above are the last ones, as of FiguresAt, or none (zero, and
	// no FiguresAt). owt list --fresh works them out itself.
	FiguresPending bool `json:"figures_pending,omitempty"`
	// Interrupted: the user stopped its last turn (Esc); no turn finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// PR is the branch's pull request as last polled (owt pr).
	PR *state.PR `json:"pr,omitempty"`
	// NeedsYou lists the reactions that escalated to the user, each with
	// why ("ci_failed: 3 attempts used; …").
	NeedsYou []string `json:"needs_you,omitempty"`
	// Reactions are the reaction sources' memory (attempts, last cause).
	Reactions map[string]*state.Reaction `json:"reactions,omitempty"`
	// Resolve is the conflict handed to the agent (owt resolve) and owt's
	// last verdict on its work.
	Resolve *state.Resolving `json:"resolve,omitempty"`
	// Spawner is the agent that spawned this one (owt mcp spawn_agent).
	Spawner string `json:"spawner,omitempty"`
	// Messages counts its messages to and from other agents (owt mcp).
	Messages outbox.Counts `json:"messages"`
	// Swarm is the worktree and role of a swarm worker (owt swarm).
	Swarm *Swarm `json:"swarm,omitempty"`
	// Template is the task template of its first prompt (owt new
	// --template), Issue the GitHub issue its task came from.
	Template string `json:"template,omitempty"`
	Issue    int    `json:"issue,omitempty"`
	// Usage is the agent's tokens and their cost, as the monitor last
	// read them from its tool's session files (absent when none).
	Usage *usage.Summary `json:"usage,omitempty"`
}

// Swarm is a swarm worker's place: its host worktree and its role.
type Swarm struct {
	Host string `json:"host"`
	Role string `json:"role"`
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
	// Tip and BaseTip are the commits of the branch and of its base the
	// figures were worked out at.
	Tip     string `json:"tip,omitempty"`
	BaseTip string `json:"base_tip,omitempty"`
	// Keeper is the pid of the monitor that watches the worktree and
	// works the figures out again when it changes (KeepStats): while it
	// runs, they hold past StatsTTL.
	Keeper int `json:"keeper,omitempty"`
}

// StatsTTL is how long computed git figures are reused while the branch,
// its base and the agent's status stay as they were (owt list --fresh
// says it). Computing them costs
// a few git processes per worktree (1.5 s for a hundred): a list redrawn
// every second, or a script polling owt list --json, must not pay that
// each time. A commit on either branch or a turn's end shows at once (one
// git for-each-ref per repository tells); files edited without either
// show within StatsTTL, or within a tick of its monitor when the monitor
// watches the worktree (KeepStats). --fresh recomputes.
const StatsTTL = 10 * time.Second

// stamp is what a worktree's git figures depend on that git tells cheaply:
// its branch's commit and its base's (a branch, else the commit it was
// made from).
type stamp struct{ tip, base, baseRef string }

// branchTips are the repository's branch tips, read from its ref files
// (no process: a cold list of kept figures runs no git for them), else
// asked of git (a reftable repository, a ref file it could not read).
func branchTips(root string) map[string]string {
	if _, common, err := git.GitDirs(root); err == nil {
		if _, err := os.Stat(filepath.Join(common, "reftable")); errors.Is(err, fs.ErrNotExist) {
			if t, err := git.ReadBranchTips(common); err == nil && len(t) > 0 {
				return t
			}
		}
	}
	t, _ := git.Repo{Root: root}.BranchTips()
	return t
}

// stampsOf reads the stamps of recs: the ref files of each repository,
// or one git process.
func stampsOf(recs []*state.Record) map[*state.Record]stamp {
	tips := map[string]map[string]string{}
	out := make(map[*state.Record]stamp, len(recs))
	for _, r := range recs {
		t, ok := tips[r.Repo]
		if !ok {
			t = branchTips(r.Repo)
			tips[r.Repo] = t
		}
		s := stamp{tip: t[r.Branch], baseRef: git.BranchRef(r.Base), base: t[r.Base]}
		if s.base == "" && r.BaseCommit != "" {
			s.baseRef, s.base = r.BaseCommit, r.BaseCommit
		}
		out[r] = s
	}
	return out
}

// fresh reports whether st still holds for r: worked out at the same
// commits, after the agent's last status change, less than StatsTTL ago
// or kept since by a monitor that runs (one of ks).
func (st Stats) fresh(r *state.Record, s stamp, now time.Time, ks keepers) bool {
	age := now.Sub(st.At)
	return s.tip != "" && st.Tip == s.tip && st.BaseTip == s.base &&
		!st.At.Before(r.StatusSince) && age >= 0 && (age < StatsTTL || ks.live[st.Keeper])
}

type statsCache struct {
	mu      sync.Mutex
	path    string
	Entries map[state.Key]Stats `json:"entries"`
	dirty   bool
}

func loadStatsCache() *statsCache {
	c := &statsCache{path: filepath.Join(xdg.CacheHome, "owt", "stats.json"), Entries: map[state.Key]Stats{}}
	if data, err := os.ReadFile(c.path); err == nil {
		_ = json.Unmarshal(data, c)
		if c.Entries == nil {
			c.Entries = map[state.Key]Stats{}
		}
	}
	return c
}

// save writes the cache atomically, merged with what others wrote since
// it was read (a monitor keeping figures, another list): the newer entry
// of each worktree wins. It is only a cache, so errors are ignored.
func (c *statsCache) save() {
	if !c.dirty {
		return
	}
	if os.MkdirAll(filepath.Dir(c.path), 0o700) != nil {
		return
	}
	lock := flock.New(c.path + ".lock")
	if err := lock.Lock(); err != nil {
		return
	}
	defer func() { _ = lock.Unlock() }()
	now := loadStatsCache()
	for k, e := range now.Entries {
		if mine, ok := c.Entries[k]; !ok || mine.At.Before(e.At) {
			c.Entries[k] = e
		}
	}
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	_ = atomicfile.Write(c.path, data)
	c.dirty = false
}

// computeStats asks git about one worktree, whose stamp was read before.
func computeStats(r *state.Record, sp stamp) Stats {
	s := Stats{At: time.Now(), Tip: sp.tip, BaseTip: sp.base}
	if _, err := os.Stat(r.Path); err != nil {
		s.Missing = true
		return s
	}
	repo := git.Repo{Root: r.Repo}
	base := sp.baseRef
	if sp.base == "" {
		base = repo.BaseRef(r.Base, r.BaseCommit) // the base is gone: as git says
	}
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
// parallel and checking sessions with one tmux call. Stale figures a
// live monitor keeps are not computed but marked pending (FiguresPending),
// unless o.Fresh.
func Collect(tm *tmux.Client, recs []*state.Record, o ListOptions) []Item {
	// tmux answers while the files are read: its process is most of a
	// warm list's time.
	sessc := make(chan []tmux.Session, 1)
	go func() {
		sessions, _ := tm.Sessions()
		sessc <- sessions
	}()
	cache := loadStatsCache()
	stamps := stampsOf(recs)
	now := time.Now()
	ks := liveKeepers(now)
	loc := workspace.NewLocator(tm, <-sessc)
	items := make([]Item, len(recs))
	var stale []int
	for i, r := range recs {
		st, ok := cache.Entries[r.Key()]
		items[i] = itemOf(r, loc)
		switch {
		case o.Fresh:
		case ok && st.fresh(r, stamps[r], now, ks):
			items[i].applyStats(st)
			continue
		case ks.keeps(r) && stamps[r].tip != "" && !r.Resolve.Ready():
			// (A row that says READY TO SHIP is judged on its figures:
			// checkResolves reads its uncommitted files, which must be
			// now's, not the monitor's last. Such rows are few.)
			items[i].pending(st, ok)
			continue
		}
		stale = append(stale, i) // no branch tip: no figures hold, as before
	}
	<-cache.compute(recs, stamps, stale, 8, func(i int, st Stats) { items[i].applyStats(st) })
	addMessages(items, recs)
	addUsage(items)
	checkResolves(items)
	return items
}

// checkResolves keeps READY TO SHIP to what owt verified: a resolve found
// ready whose branch moved since (a commit owt did not check) or whose
// worktree has changes is shown as changed, until owt checks it again
// (the monitor's next look, or owt resolve NAME --status). One git
// process per such row: rows with a ready resolve are few.
func checkResolves(items []Item) {
	for i := range items {
		r := items[i].Resolve
		if !r.Ready() {
			continue
		}
		seen := strings.Fields(r.Seen)
		tip, err := git.Repo{Root: items[i].Repo}.ResolveCommit(git.BranchRef(items[i].Branch))
		if items[i].Dirty == 0 && err == nil && len(seen) > 1 && seen[1] == tip {
			continue
		}
		cp := *r
		cp.Verdict = "changed since owt checked it: 'owt resolve " + items[i].Name + " --status' checks again"
		items[i].Resolve = &cp
	}
}

// addUsage fills in each item's tokens and cost: one read of each
// repository's usage file, which the monitor keeps (never a session file).
func addUsage(items []Item) {
	byRepo := map[string]map[string]*usage.Summary{}
	for i := range items {
		sums, ok := byRepo[items[i].Repo]
		if !ok {
			sums = usage.Summaries(items[i].Repo)
			byRepo[items[i].Repo] = sums
		}
		if s := sums[items[i].Name]; s != nil && s.Of(items[i].Life, items[i].CreatedAt) {
			items[i].Usage = s // else a deleted agent's of the name, not yet moved aside
		}
	}
}

// addMessages fills in each item's message counts, items[i] being
// recs[i]'s: one outbox read per agent.
func addMessages(items []Item, recs []*state.Record) {
	agents := make([]outbox.Agent, len(items))
	since := make(map[outbox.Agent]time.Time, len(items))
	for i, r := range recs {
		// A record from before lives shares its name's file with earlier
		// agents' mail (outbox.Since, the rule check_messages reads by).
		agents[i] = outbox.Of(r)
		if t := outbox.Since(r); !t.IsZero() {
			since[agents[i]] = t
		}
	}
	counts := outbox.Default().PeerCounts(agents, since)
	for i := range items {
		items[i].Messages = counts[state.Key{Repo: items[i].Repo, Name: items[i].Name}]
	}
}

func itemOf(r *state.Record, loc *workspace.Locator) Item {
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
		Name:     r.Name, Repo: r.Repo, Branch: r.Branch, Base: r.Base, Path: r.Path, InPlace: r.InPlace,
		Session: r.Session, Live: where.Place == workspace.Here, Where: where.Place.String(),
		Tool: workspace.ToolOf(r), Status: string(r.Status), StatusSince: r.StatusSince,
		StatusSource: string(r.Source), ExitCode: r.ExitCode, Task: untrusted.From(r.Task),
		Port: r.Port, CreatedAt: r.CreatedAt, Life: r.Life, WaitingFor: r.WaitingFor, Limit: r.Limit, TurnError: r.TurnError, SetupFailed: r.SetupFailed,
		PR: r.PR, NeedsYou: r.NeedsYou(), Reactions: r.Reactions, Resolve: r.Resolve,
		Interrupted: r.Interrupted && r.Status == state.Idle, Spawner: r.Spawner,
		Swarm: swarmOf(r), Template: r.Template, Issue: r.Issue,
	}
}

func swarmOf(r *state.Record) *Swarm {
	if r.Swarm == nil {
		return nil
	}
	return &Swarm{Host: r.Swarm.Host, Role: r.Swarm.Role}
}

// pending marks the item's figures as being worked out by the monitor,
// showing the last ones (st, when ok) with their time.
func (it *Item) pending(st Stats, ok bool) {
	if ok {
		it.applyStats(st)
	}
	it.FiguresPending = true
}

func (it *Item) applyStats(s Stats) {
	it.Ahead, it.Behind, it.Dirty = s.Ahead, s.Behind, s.Dirty
	it.Insertions, it.Deletions, it.Missing = s.Insertions, s.Deletions, s.Missing
	if !s.At.IsZero() {
		at := s.At
		it.FiguresAt = &at
	}
}
