package state

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// Held is a lock a process holds for as long as an operation runs. The
// kernel drops it when the process dies, even by kill -9, so "nobody holds
// it" proves the operation is no longer running anywhere.
type Held struct{ lock *flock.Flock }

// heldPath is the lock file of key: under the state dir, named by a hash
// so any text (repo paths, names) makes a safe file name.
func heldPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(Dir(), "locks", hex.EncodeToString(sum[:])[:24]+".lock")
}

// Hold takes the lock of key without waiting; it fails when another
// process holds it.
func Hold(key string) (*Held, error) {
	p := heldPath(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("create lock dir: %w", err)
	}
	l := flock.New(p)
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
	if !ok {
		return nil, fmt.Errorf("lock %s: held by another owt process", p)
	}
	return &Held{lock: l}, nil
}

// Release lets the lock go; the file stays (removing it would race with a
// process about to lock it).
func (h *Held) Release() {
	if h != nil {
		_ = h.lock.Unlock()
	}
}

// IsHeld reports whether some process holds the lock of key now.
func IsHeld(key string) bool {
	p := heldPath(key)
	if _, err := os.Stat(p); err != nil {
		return false
	}
	l := flock.New(p)
	ok, err := l.TryRLock()
	if err != nil {
		return false
	}
	if ok {
		_ = l.Unlock()
		return false
	}
	return true
}
