package monitor

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/owt-tmux/owt/internal/fswatch"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
)

// The git figures of owt list (ahead, behind, uncommitted files, diff
// size), kept by the monitor in proportion to change: each worktree of
// this server's agents has a watch set (its own git dir: HEAD, index;
// its folders, less those git ignores) and each repository one for its
// refs, all in one file system watcher. A tick asks git only about the
// worktrees whose set changed (or whose agent's status did), and about a
// repository's branch tips when its refs did; a quiet agent costs no
// process. The figures land in owt list's cache marked as kept
// (lifecycle.Keeper), so a cold list reads them instead of running git
// four times per worktree. A worktree whose folders cannot all be
// watched (watch limits) is looked at every pollEvery instead, said once
// in the log.

const (
	// maxWatchesPerWorktree bounds one worktree's watch set.
	maxWatchesPerWorktree = 2000
	// pollEvery is how often a worktree that cannot be watched is looked at.
	pollEvery = 30 * time.Second
	// figuresPerJob bounds the worktrees one background job sets up or
	// works out, so a monitor starting on a large fleet spreads the work.
	figuresPerJob = 64
	// setupPerJob bounds the worktrees one job starts watching: no
	// process unless their figures are worked out (or their tree is
	// large), so more than it works out.
	setupPerJob = 64
)

type figureKeeper struct {
	off     bool // no watcher could be had: list works figures out itself
	w       *fswatch.Watcher
	keeper  *lifecycle.Keeper
	wts     map[state.Key]*watchedTree
	repos   map[string]*watchedRefs
	pending map[state.Key]bool // worktrees to work out again (changed)
	moved   map[string]bool    // repositories whose refs moved
	busy    atomic.Bool        // a background job runs
	// cacheAt is owt list's cache's time when last looked at: figures a
	// list wrote there meanwhile are marked as kept (Keeper.Remark).
	cacheAt time.Time
	// later is what the background job leaves for the tick to apply.
	mu    sync.Mutex
	later []func()
}

// sync has fn run on the monitor's goroutine, at the next tick.
func (m *monitor) sync(fn func()) {
	m.figures.mu.Lock()
	defer m.figures.mu.Unlock()
	m.figures.later = append(m.figures.later, fn)
}

type watchedTree struct {
	path    string
	since   time.Time // the agent's status change its figures were asked after
	ready   bool      // its watch set is in place
	watched time.Time // when it was put in place
}

type watchedRefs struct {
	common string
	tips   map[string]string // branch → commit, read from the ref files
}

func wtWatchKey(k state.Key) string   { return "worktree " + k.Repo + "\x00" + k.Name }
func refsWatchKey(repo string) string { return "refs " + repo }

// keepFigures is the figures' part of a tick.
func (m *monitor) keepFigures(now time.Time) {
	f := &m.figures
	if f.off {
		return
	}
	if f.w == nil {
		w, err := fswatch.New(maxWatchesPerWorktree, fswatch.SystemLimit()/2, pollEvery, m.logf)
		if err != nil {
			m.logf("%v; owt list works git figures out itself", err)
			f.off = true
			return
		}
		f.w, f.keeper = w, lifecycle.NewKeeper(m.socket, m.server)
		f.wts, f.repos = map[state.Key]*watchedTree{}, map[string]*watchedRefs{}
		f.pending, f.moved = map[state.Key]bool{}, map[string]bool{}
	}
	f.mu.Lock()
	later := f.later
	f.later = nil
	f.mu.Unlock()
	for _, fn := range later {
		fn()
	}

	want := map[state.Key]*state.Record{}
	for _, r := range m.recs.records {
		if r.Creating || r.Path == "" || !(r.Socket == m.socket || m.sameServer(r)) {
			continue
		}
		want[r.Key()] = r
	}
	for k := range f.wts {
		if want[k] == nil {
			f.w.Forget(wtWatchKey(k))
			delete(f.wts, k)
			delete(f.pending, k)
		}
	}
	var setup []*state.Record
	for k, r := range want {
		wt := f.wts[k]
		if wt == nil || wt.path != r.Path {
			wt = &watchedTree{path: r.Path, since: r.StatusSince}
			f.wts[k] = wt
		}
		if !wt.ready {
			setup = append(setup, r)
			continue
		}
		if !wt.since.Equal(r.StatusSince) {
			wt.since = r.StatusSince // a turn ended or began: figures owt list checks against
			f.pending[k] = true
		}
	}
	for _, key := range f.w.Changed(now) {
		if repo, ok := strings.CutPrefix(key, "refs "); ok {
			f.moved[repo] = true
			if rv := f.repos[repo]; rv != nil {
				rv.readTips()
			}
			continue
		}
		rest, _ := strings.CutPrefix(key, "worktree ")
		repo, name, _ := strings.Cut(rest, "\x00")
		if k := (state.Key{Repo: repo, Name: name}); f.wts[k] != nil {
			f.pending[k] = true
		}
	}
	// A repository's refs are watched at once, here: the reactions of
	// this same tick read its tips (no process: a few files).
	for _, r := range want {
		if f.repos[r.Repo] == nil {
			m.watchRefs(r.Repo)
		}
	}
	if f.busy.Load() {
		return // the last job still runs: what is pending waits for the next tick
	}
	setup = setup[:min(len(setup), setupPerJob)]
	// A moved repository: every worktree of it is looked at, and only
	// those whose branch or base commit moved are worked out (KeepStats).
	var recs []*state.Record
	force := map[state.Key]bool{}
	for k, r := range want {
		if f.wts[k] == nil || !f.wts[k].ready {
			continue
		}
		switch {
		case f.pending[k] && len(force) < figuresPerJob:
			force[k] = true
			recs = append(recs, r)
		case f.moved[r.Repo]:
			recs = append(recs, r)
		}
	}
	for k := range force {
		delete(f.pending, k)
	}
	clear(f.moved)
	// A list that worked figures out (before this monitor kept them,
	// or while a change was pending) wrote them unmarked: they are this
	// monitor's to keep from now on.
	var remark map[state.Key]time.Time
	if at := lifecycle.StatsCacheTime(); !at.Equal(f.cacheAt) {
		f.cacheAt = at
		remark = map[state.Key]time.Time{}
		for k, wt := range f.wts {
			if !wt.watched.IsZero() {
				remark[k] = wt.watched
			}
		}
	}
	if len(setup) == 0 && len(recs) == 0 && len(remark) == 0 {
		return
	}
	f.busy.Store(true)
	go func() {
		defer f.busy.Store(false)
		var watched []*state.Record
		for _, r := range setup {
			if m.watchTree(r) {
				watched = append(watched, r)
			}
		}
		// Figures worked out before (by an earlier monitor, or a list)
		// that nothing in the worktree changed since are kept as they
		// are; the others are worked out now.
		if len(watched) > 0 {
			adopted := f.keeper.Adopt(watched, untouchedSince)
			m.sync(func() {
				for _, r := range watched {
					if !adopted[r.Key()] {
						f.pending[r.Key()] = true
					}
				}
			})
		}
		for _, r := range setup {
			if !slices.Contains(watched, r) {
				m.sync(func() { f.pending[r.Key()] = true })
			}
		}
		if len(remark) > 0 {
			if gone := f.keeper.Remark(remark); len(gone) > 0 {
				m.sync(func() {
					for _, k := range gone {
						f.pending[k] = true
					}
				})
			}
		}
		if len(recs) > 0 {
			left := f.keeper.KeepStats(recs, force, figuresPerJob)
			m.sync(func() {
				for _, k := range left {
					f.pending[k] = true
				}
			})
		}
	}()
}

// watchRefs watches a repository's refs: its common git dir (packed-refs,
// the main checkout's HEAD and index) and the folders of refs/heads.
func (m *monitor) watchRefs(repo string) {
	f := &m.figures
	_, common, err := git.GitDirs(repo)
	if err != nil {
		m.logf("watch %s: %v", repo, err)
		f.repos[repo] = &watchedRefs{} // no tips: the reactions look now and then
		return
	}
	dirs := []string{common, filepath.Join(common, "refs")}
	heads, _ := fswatch.Tree(filepath.Join(common, "refs", "heads"), nil)
	dirs = append(dirs, heads...)
	f.w.Watch(refsWatchKey(repo), dirs, func(string) bool { return true })
	rv := &watchedRefs{common: common}
	rv.readTips()
	f.repos[repo] = rv
}

// readTips reads the branch tips again (no process); nil when they
// cannot be read, and the reactions look now and then as before.
func (rv *watchedRefs) readTips() {
	rv.tips, _ = git.ReadBranchTips(rv.common)
}

// askIgnoredPast is the size of a worktree's tree (in folders) past
// which git is asked which folders it ignores, so they are not watched
// (dependencies, build output: a change there changes no figure). A
// smaller tree is watched whole: no process.
const askIgnoredPast = 256

// watchTree puts a worktree's watch set in place: its own git dir and
// its folders, less .git (and, in a large tree, the folders git
// ignores). A folder made later is watched unless git ignores it. It
// reports whether the worktree is watched (not polled, not broken).
func (m *monitor) watchTree(r *state.Record) bool {
	f := &m.figures
	key := r.Key()
	own, _, err := git.GitDirs(r.Path)
	if err != nil {
		// A worktree gone or broken: owt list says so (missing); it is
		// looked at again when its record changes.
		m.sync(func() {
			if wt := f.wts[key]; wt != nil {
				wt.ready = true
				f.pending[key] = true
			}
		})
		return false
	}
	root := r.Path
	skip := map[string]bool{}
	keep := func(d string) bool { return filepath.Base(d) != ".git" && !skip[d] }
	dirs, err := fswatch.Tree(root, keep)
	if err == nil && len(dirs) > askIgnoredPast {
		if ignored, err := git.IgnoredDirs(root); err == nil {
			for _, d := range ignored {
				skip[filepath.Join(root, filepath.FromSlash(d))] = true
			}
			dirs, err = fswatch.Tree(root, keep)
		}
	}
	if err != nil {
		dirs = nil
	}
	grow := func(d string) bool {
		if !keep(d) {
			return false
		}
		rel, err := filepath.Rel(root, d)
		if err != nil {
			return false
		}
		ign, err := git.IsIgnored(root, filepath.ToSlash(rel))
		return err == nil && !ign
	}
	at := time.Now()
	watched := f.w.Watch(wtWatchKey(key), append(dirs, own), grow)
	m.sync(func() {
		if wt := f.wts[key]; wt != nil && wt.path == r.Path {
			wt.ready = true
			if watched {
				wt.watched = at
			}
		}
	})
	return watched
}

// untouchedSince reports whether nothing in the worktree at r.Path (its
// watched folders and what they hold) nor its own git dir's HEAD and
// index changed since at, by their change times (ctime, which no tool
// sets back), with a second's margin for coarse clocks: the figures
// worked out at at still hold. It gives up (false) past maxLooked
// entries: the figures are worked out again instead.
func untouchedSince(r *state.Record, at time.Time) bool {
	const maxLooked = 20000
	own, _, err := git.GitDirs(r.Path)
	if err != nil {
		return false
	}
	limit := at.Add(-time.Second)
	newer := func(p string) bool {
		var st unix.Stat_t // x/sys/unix: Ctim and Mtim on Linux and macOS alike
		if unix.Lstat(p, &st) != nil {
			return true
		}
		return !time.Unix(st.Ctim.Unix()).Before(limit) || !time.Unix(st.Mtim.Unix()).Before(limit)
	}
	if newer(filepath.Join(own, "HEAD")) || newer(filepath.Join(own, "index")) {
		return false
	}
	looked := 0
	clean := true
	err = filepath.WalkDir(r.Path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			clean = false
			return filepath.SkipAll
		}
		if d.Name() == ".git" && p != r.Path {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		looked++
		if looked > maxLooked || newer(p) {
			clean = false
			return filepath.SkipAll
		}
		return nil
	})
	return err == nil && clean
}

// tipsOf is the commits of r's branch and of the branch its work goes
// into (into, else its base), as the ref files the monitor watches say;
// "" when it does not watch them or either is not there (the reactions
// then look now and then, as before).
func (m *monitor) tipsOf(r *state.Record, into string) string {
	rv := m.figures.repos[r.Repo]
	if rv == nil || rv.tips == nil {
		return ""
	}
	if into == "" {
		into = r.Base
	}
	head, base := rv.tips[r.Branch], rv.tips[into]
	if head == "" || base == "" {
		return ""
	}
	return head + " " + base
}

// stopKeeping ends the figures' watch and says the monitor keeps none.
func (m *monitor) stopKeeping() {
	if m.figures.w != nil {
		m.figures.w.Close()
		m.figures.keeper.Stop()
	}
}
