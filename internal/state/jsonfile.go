package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"

	"github.com/owt-tmux/owt/internal/atomicfile"
)

// JSONFile is one JSON document that several owt processes change: the
// mechanics shared by the worktree records, the runs, the outboxes and
// the note. Readers never lock (every write is an atomic rename, so a
// read sees a whole file); Update holds an exclusive flock on LockPath
// across the read, the change and the write. Each store keeps its own
// reading (schema checks, messages) in Load and its own answer to a
// corrupt file in Corrupt.
type JSONFile[T any] struct {
	Path string
	// LockPath is the lock's file; "" means Path + ".lock".
	LockPath string
	// What names the document in errors: "state", "run NAME", "outbox of NAME".
	What string
	// Load reads the document as it is now (a missing file is the
	// store's choice: empty, or an error).
	Load func() (*T, error)
	// Corrupt, when set, is given Load's error under the lock and
	// returns the document to go on with instead (set aside and
	// rebuilt, or started afresh), or the error to stop with.
	Corrupt func(error) (*T, error)
	// Unsynced writes without the fsync (atomicfile.WriteUnsynced).
	Unsynced bool
}

// Update changes the document under its lock: a fresh Load, fn, and a
// write when fn reports a change. When fn fails nothing is written.
func (j JSONFile[T]) Update(fn func(*T) (changed bool, err error)) error {
	return j.Locked(func() error {
		v, err := j.Load()
		if err != nil && j.Corrupt != nil {
			v, err = j.Corrupt(err)
		}
		if err != nil {
			return err
		}
		changed, err := fn(v)
		if err != nil || !changed {
			return err
		}
		return j.Write(v)
	})
}

// Locked runs fn holding the document's lock (its folder made first): for
// a store whose change is more than one write (a run's state and then its
// event log).
func (j JSONFile[T]) Locked(fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(j.Path), 0o700); err != nil {
		return fmt.Errorf("create the folder of %s: %w", j.What, err)
	}
	lockPath := j.LockPath
	if lockPath == "" {
		lockPath = j.Path + ".lock"
	}
	lock := flock.New(lockPath)
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", j.What, err)
	}
	defer func() { _ = lock.Unlock() }()
	return fn()
}

// Write replaces the document with v (indented, mode 0600). Callers that
// share the file with other processes call it from within Update.
func (j JSONFile[T]) Write(v *T) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", j.What, err)
	}
	write := atomicfile.Write
	if j.Unsynced {
		write = atomicfile.WriteUnsynced
	}
	if err := write(j.Path, append(data, '\n')); err != nil {
		return fmt.Errorf("save %s: %w", j.What, err)
	}
	return nil
}
