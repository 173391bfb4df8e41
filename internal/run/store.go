package run

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gofrs/flock"

	"github.com/owt-tmux/owt/internal/state"
)

// ErrNoSuchRun marks a run name with no state file behind it.
var ErrNoSuchRun = errors.New("no such run")

// ErrRunExists marks a name already taken by a registered run.
var ErrRunExists = errors.New("exists")

// Store keeps runs in a directory: <name>.json (the state, written as
// internal/state writes its records: under an exclusive flock on
// <name>.lock, atomically, mode 0600, versioned) and <name>.log (the event
// log, JSON lines, only ever appended, under the same lock so its order is
// the order of the changes).
type Store struct{ Dir string }

// DefaultStore is $XDG_STATE_HOME/owt/runs.
func DefaultStore() Store { return Store{Dir: filepath.Join(state.Dir(), "runs")} }

// Path is the state file of the run called name.
func (s Store) Path(name string) string { return filepath.Join(s.Dir, name+".json") }

// LogPath is the event log of the run called name.
func (s Store) LogPath(name string) string { return filepath.Join(s.Dir, name+".log") }

// withLock runs fn holding the run's lock.
func (s Store) withLock(name string, fn func() error) error {
	if !ValidName(name) {
		return fmt.Errorf("invalid run name %q: %s", name, NameRule)
	}
	return s.doc(name).Locked(fn)
}

// doc is the state file of the run called name, locked beside it.
func (s Store) doc(name string) state.JSONFile[Run] {
	return state.JSONFile[Run]{Path: s.Path(name), LockPath: filepath.Join(s.Dir, name+".lock"), What: "run " + name,
		Load: func() (*Run, error) { return s.Load(name) }}
}

// Exists reports whether a run called name is registered.
func (s Store) Exists(name string) bool {
	_, err := os.Stat(s.Path(name))
	return ValidName(name) && err == nil
}

// Create registers r, failing with ErrRunExists when its name is taken,
// and logs the "registered" event.
func (s Store) Create(r *Run) error {
	return s.withLock(r.Name, func() error {
		if _, err := os.Stat(s.Path(r.Name)); err == nil {
			return fmt.Errorf("run %s %w (see 'owt run status %s', or give another --name)", r.Name, ErrRunExists, r.Name)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("check run %s: %w", r.Name, err)
		}
		if err := s.write(r); err != nil {
			return err
		}
		return s.appendEvents(r.Name, []Event{{At: r.CreatedAt, Event: "registered", Detail: r.Plan.String()}})
	})
}

// CreateChecked registers r as Create does once check passes, both
// under the lock every CreateChecked holds: a check that looks at the
// other registered runs (their worktree names) cannot pass for two runs
// registered at once that clash.
func (s Store) CreateChecked(r *Run, check func() error) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("create run dir: %w", err)
	}
	// Beside the runs dir, not in it: forgetting every run leaves it empty.
	lock := flock.New(s.Dir + ".register.lock")
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock the runs for registration: %w", err)
	}
	defer func() { _ = lock.Unlock() }()
	if err := check(); err != nil {
		return err
	}
	return s.Create(r)
}

// Load reads the run called name without locking: every write is a
// rename, so a read sees a whole file.
func (s Store) Load(name string) (*Run, error) {
	if !ValidName(name) {
		return nil, fmt.Errorf("%w %q", ErrNoSuchRun, name)
	}
	data, err := os.ReadFile(s.Path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w %q (see 'owt run list')", ErrNoSuchRun, name)
	}
	if err != nil {
		return nil, fmt.Errorf("read run %s: %w", name, err)
	}
	return decodeRun(s.Path(name), name, data)
}

func decodeRun(path, name string, data []byte) (*Run, error) {
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("run state %s is corrupt: %v", path, err)
	}
	switch {
	case r.Version > StateVersion:
		return nil, fmt.Errorf("run state %s was written by a newer owt (schema %d; this owt knows %d): upgrade owt", path, r.Version, StateVersion)
	case r.Version < 1:
		return nil, fmt.Errorf("run state %s is corrupt: unknown schema version %d", path, r.Version)
	case r.Name != name:
		return nil, fmt.Errorf("run state %s is corrupt: it names run %q", path, r.Name)
	}
	return &r, nil
}

// Update changes the run called name under its lock: a fresh read, fn,
// then an atomic write and fn's events appended to the log. When fn
// returns an error, or no events and leaves UpdatedAt as it was, nothing
// is written (a quiet change, such as when a failure was last tried, moves
// UpdatedAt).
func (s Store) Update(name string, fn func(*Run) ([]Event, error)) error {
	if !s.Exists(name) {
		return fmt.Errorf("%w %q (see 'owt run list')", ErrNoSuchRun, name) // and no lock file made for it
	}
	return s.withLock(name, func() error {
		r, err := s.Load(name)
		if err != nil {
			return err
		}
		before := r.UpdatedAt
		events, err := fn(r)
		if err != nil || (len(events) == 0 && r.UpdatedAt.Equal(before)) {
			return err
		}
		if err := s.write(r); err != nil {
			return err
		}
		if len(events) == 0 {
			return nil
		}
		return s.appendEvents(name, events)
	})
}

func (s Store) write(r *Run) error {
	r.Version = StateVersion
	return s.doc(r.Name).Write(r)
}

// appendEvents adds events to the log in one write. Called with the lock
// held, after the state they describe was written.
func (s Store) appendEvents(name string, events []Event) error {
	var b strings.Builder
	for _, ev := range events {
		line, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("encode event: %w", err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	f, err := os.OpenFile(s.LogPath(name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("run %s was saved, but its event log could not be opened: %w", name, err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		_ = f.Close()
		return fmt.Errorf("run %s was saved, but its event log could not be written: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("run %s was saved, but its event log could not be written: %w", name, err)
	}
	return nil
}

// Events reads the event log of the run called name.
func (s Store) Events(name string) ([]Event, error) {
	if _, err := s.Load(name); err != nil {
		return nil, err
	}
	f, err := os.Open(s.LogPath(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read run log %s: %w", name, err)
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var ev Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			// A torn or foreign line hides nothing after it: it is shown
			// for what it is.
			ev = Event{Event: "unreadable", Detail: fmt.Sprintf("line %d of %s is not an event: %v", n, s.LogPath(name), err)}
		}
		out = append(out, ev)
	}
	return out, sc.Err()
}

// List returns every registered run, oldest first. A run file that cannot
// be read is reported, not skipped: a run must not vanish from the list.
func (s Store) List() ([]*Run, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var runs []*Run
	var broken BrokenRuns
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if e.IsDir() || !ok || !ValidName(name) {
			continue // locks, logs, and temp files of a write in progress
		}
		r, err := s.Load(name)
		if err != nil {
			// One broken file must not hide the other runs: it is said
			// on its own ('owt run status NAME' names the problem).
			broken = append(broken, &BrokenRun{Name: name, Path: s.Path(name), Err: err})
			continue
		}
		runs = append(runs, r)
	}
	sort.Slice(runs, func(i, j int) bool {
		if !runs[i].CreatedAt.Equal(runs[j].CreatedAt) {
			return runs[i].CreatedAt.Before(runs[j].CreatedAt)
		}
		return runs[i].Name < runs[j].Name
	})
	if len(broken) > 0 {
		return runs, broken
	}
	return runs, nil
}

// BrokenRuns are run state files List could not read; it returns them
// beside the runs it could.
type BrokenRuns []error

// BrokenRun is one run whose state file cannot be read: the run is
// still there (its name is taken, its agents may work), unreadable.
type BrokenRun struct {
	Name, Path string
	Err        error
}

func (b *BrokenRun) Error() string { return b.Err.Error() }
func (b *BrokenRun) Unwrap() error { return b.Err }

// Names are the runs of b.
func (b BrokenRuns) Names() []string {
	var names []string
	for _, err := range b {
		var br *BrokenRun
		if errors.As(err, &br) {
			names = append(names, br.Name)
		}
	}
	return names
}

func (b BrokenRuns) Error() string {
	msgs := make([]string, len(b))
	for i, e := range b {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "; ")
}

// Latest picks the run a command means when it names none: the only run,
// else the newest active one. ok is false when that is ambiguous or there
// is no run.
func Latest(runs []*Run) (r *Run, ok bool) {
	if len(runs) == 1 {
		return runs[0], true
	}
	for i := len(runs) - 1; i >= 0; i-- {
		if runs[i].State == Active {
			return runs[i], true
		}
	}
	return nil, false
}

// OfRepo are the runs of the repository at root (all of them when root
// is empty: owt run outside a repository).
func OfRepo(runs []*Run, root string) []*Run {
	if root == "" {
		return runs
	}
	var out []*Run
	for _, r := range runs {
		if r.Repo == root {
			out = append(out, r)
		}
	}
	return out
}

// ErrRunInFlight is returned by Forget for a run that may still start or
// judge tasks.
var ErrRunInFlight = errors.New("is active")

// Forget removes the run called name from owt's records: its state, log
// and lock. Its worktrees, branches and agents are not touched (they are
// ordinary owt worktrees). An active run is refused (stop it first); a
// corrupt state file can be forgotten, so a broken run never keeps its
// name forever.
func (s Store) Forget(name string) error {
	if !s.Exists(name) {
		return fmt.Errorf("%w %q (see 'owt run list')", ErrNoSuchRun, name)
	}
	return s.withLock(name, func() error {
		if r, err := s.Load(name); err == nil && r.State == Active {
			return fmt.Errorf("run %s %w: 'owt run stop %s' first", name, ErrRunInFlight, name)
		}
		for _, p := range []string{s.Path(name), s.LogPath(name)} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("forget run %s: %w", name, err)
			}
		}
		// The lock file goes last, still held: a writer waiting on it
		// finds no run when it gets it.
		return os.Remove(filepath.Join(s.Dir, name+".lock"))
	})
}
