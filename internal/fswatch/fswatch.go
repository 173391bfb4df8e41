// Package fswatch tells which of many watched things changed on disk,
// so a caller asks about those alone: one inotify instance for all of them
// (a user has few: 128 by default), a set of folders per key, and a bound
// on the watches a key may hold. A key whose folders cannot all be watched
// (the bound, or the system's watch limit) is polled instead: it reads as
// changed every PollEvery, and that is said once, through Logf.
//
// A change is an event in a watched folder: a file made, written, removed
// or renamed there. Folders are watched, not walked: Tree lists a tree's
// folders for the caller to hand over, skipping those it is told to.
package fswatch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher watches the folders of many keys with one notifier.
type Watcher struct {
	// MaxPerKey bounds the folders one key may watch; a key asking for
	// more is polled. MaxTotal bounds them all (a share of the system's
	// limit, which other programs use too).
	MaxPerKey, MaxTotal int
	// PollEvery is how often a polled key reads as changed.
	PollEvery time.Duration
	// Logf says, once per key, why it is polled.
	Logf func(format string, args ...any)

	fw *fsnotify.Watcher

	mu      sync.Mutex
	byDir   map[string]map[string]bool // folder → keys watching it
	keys    map[string]*keyState
	changed map[string]bool
	total   int
	said    map[string]bool // keys whose polling was logged
	closed  bool
}

type keyState struct {
	dirs   map[string]bool
	polled bool
	polls  time.Time // when a polled key last read as changed
	grow   func(dir string) bool
}

// New starts a watcher. An error (no inotify here, or no instance left)
// means the caller polls everything, as it did without one.
func New(maxPerKey, maxTotal int, pollEvery time.Duration, logf func(string, ...any)) (*Watcher, error) {
	fw, err := fsnotify.NewBufferedWatcher(4096)
	if err != nil {
		return nil, fmt.Errorf("start a file system watcher: %w", err)
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	w := &Watcher{MaxPerKey: maxPerKey, MaxTotal: maxTotal, PollEvery: pollEvery, Logf: logf, fw: fw,
		byDir: map[string]map[string]bool{}, keys: map[string]*keyState{}, changed: map[string]bool{}, said: map[string]bool{}}
	go w.loop()
	return w, nil
}

// Close stops watching.
func (w *Watcher) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	_ = w.fw.Close()
}

// Watch makes dirs key's watch set, in place of what it watched before.
// What changed before is the caller's to know: the key reads as changed
// once something changes from now on (a polled key: at once). grow, when not nil, is asked about each
// folder made later inside a watched one: true watches it too (a tree
// grows). It reports whether the key is watched (false: it is polled).
func (w *Watcher) Watch(key string, dirs []string, grow func(dir string) bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropLocked(key)
	ks := &keyState{dirs: map[string]bool{}, grow: grow}
	w.keys[key] = ks
	if len(dirs) > w.MaxPerKey {
		w.pollLocked(key, ks, fmt.Sprintf("%d folders to watch, more than %d", len(dirs), w.MaxPerKey))
		return false
	}
	for _, d := range dirs {
		if err := w.addLocked(key, ks, d); err != nil {
			w.pollLocked(key, ks, err.Error())
			return false
		}
	}
	return true
}

// Forget stops watching key.
func (w *Watcher) Forget(key string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropLocked(key)
	delete(w.keys, key)
	delete(w.changed, key)
}

// Keys are the keys watched or polled now.
func (w *Watcher) Keys() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]string, 0, len(w.keys))
	for k := range w.keys {
		out = append(out, k)
	}
	return out
}

// Changed returns the keys that changed since the last call (a polled
// key whose PollEvery passed counts), and forgets them.
func (w *Watcher) Changed(now time.Time) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, ks := range w.keys {
		if ks.polled && now.Sub(ks.polls) >= w.PollEvery {
			ks.polls = now
			w.changed[k] = true
		}
	}
	out := make([]string, 0, len(w.changed))
	for k := range w.changed {
		out = append(out, k)
	}
	clear(w.changed)
	return out
}

// Watches is the number of folders watched now.
func (w *Watcher) Watches() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.total
}

func (w *Watcher) addLocked(key string, ks *keyState, dir string) error {
	dir = filepath.Clean(dir)
	if ks.dirs[dir] {
		return nil
	}
	if len(ks.dirs) >= w.MaxPerKey {
		return fmt.Errorf("more than %d folders to watch", w.MaxPerKey)
	}
	if w.byDir[dir] == nil {
		if w.total >= w.MaxTotal {
			return fmt.Errorf("owt's %d folder watches are all in use", w.MaxTotal)
		}
		if err := w.fw.Add(dir); err != nil {
			return fmt.Errorf("watch %s: %w", dir, err)
		}
		w.total++
		w.byDir[dir] = map[string]bool{}
	}
	w.byDir[dir][key] = true
	ks.dirs[dir] = true
	return nil
}

func (w *Watcher) dropLocked(key string) {
	ks := w.keys[key]
	if ks == nil {
		return
	}
	for d := range ks.dirs {
		w.unwatchLocked(key, d)
	}
	ks.dirs = map[string]bool{}
}

func (w *Watcher) unwatchLocked(key, dir string) {
	users := w.byDir[dir]
	delete(users, key)
	if len(users) == 0 && w.byDir[dir] != nil {
		delete(w.byDir, dir)
		w.total--
		_ = w.fw.Remove(dir) // a removed folder's watch is gone already
	}
}

// pollLocked turns key to polling: its watches go, and why is said once.
func (w *Watcher) pollLocked(key string, ks *keyState, why string) {
	for d := range ks.dirs {
		w.unwatchLocked(key, d)
	}
	ks.dirs = map[string]bool{}
	ks.polled = true
	w.changed[key] = true
	if !w.said[key] {
		w.said[key] = true
		w.Logf("%s: %s; looking at it every %s instead", key, why, w.PollEvery)
	}
}

func (w *Watcher) loop() {
	for {
		select {
		case ev, ok := <-w.fw.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fw.Errors:
			if !ok {
				return
			}
			w.mu.Lock()
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				for k := range w.keys {
					w.changed[k] = true // events were lost: anything may have changed
				}
			}
			w.mu.Unlock()
		}
	}
}

func (w *Watcher) event(ev fsnotify.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	parent := filepath.Dir(ev.Name)
	for k := range w.byDir[parent] {
		w.changed[k] = true
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		for k := range w.byDir[ev.Name] {
			w.changed[k] = true
			if ks := w.keys[k]; ks != nil {
				delete(ks.dirs, ev.Name)
			}
			w.unwatchLocked(k, ev.Name)
		}
		return
	}
	if !ev.Has(fsnotify.Create) {
		return
	}
	// Only a new folder can grow a watch set; grow (a git process, for
	// the monitor) is asked about folders alone, not each file an agent
	// writes.
	if fi, err := os.Lstat(ev.Name); err != nil || !fi.IsDir() {
		return
	}
	for k := range w.byDir[parent] {
		ks := w.keys[k]
		if ks == nil || ks.grow == nil || !ks.grow(ev.Name) {
			continue
		}
		// A folder made with folders in it already (mkdir -p, a rename
		// into place): they are watched too, or the key is polled.
		dirs, err := Tree(ev.Name, ks.grow)
		if err == nil {
			for _, d := range dirs {
				if err = w.addLocked(k, ks, d); err != nil {
					break
				}
			}
		}
		if err != nil {
			w.pollLocked(k, ks, err.Error())
		}
	}
}

// Tree lists root and the folders under it that keep says to (keep is
// asked about each folder below root; nil keeps all). Symbolic links are
// not followed.
func Tree(root string, keep func(dir string) bool) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // gone meanwhile, or unreadable: not ours to watch
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && keep != nil && !keep(p) {
			return filepath.SkipDir
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// Under reports whether p is dir or inside it.
func Under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// SystemLimit is the system's bound on one user's folder watches
// (fs.inotify.max_user_watches), or 8192, the old default, when it cannot
// be read.
func SystemLimit() int {
	data, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 8192
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || n <= 0 {
		return 8192
	}
	return n
}
