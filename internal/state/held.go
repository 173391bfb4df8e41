package state

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// Locks that live as long as an operation: the kernel drops a flock when
// its process dies, even by kill -9, so "nobody holds it" proves the
// operation is not running anywhere. Their files stay (removing one would
// race with a process about to lock it).

// keyedLock is the lock file of key in sub of the state dir: named by a
// hash, so any text (repo paths, names) makes a safe file name, after a
// readable label when there is one.
func keyedLock(sub, label, key string) (*flock.Flock, error) {
	sum := sha256.Sum256([]byte(key))
	name := hex.EncodeToString(sum[:])[:24]
	if label != "" {
		name = sanitize(label) + "-" + name[:12]
	}
	p := filepath.Join(Dir(), sub, name+".lock")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return nil, fmt.Errorf("create lock dir: %w", err)
	}
	return flock.New(p), nil
}

// Held is a lock a process holds for as long as an operation runs.
type Held struct{ lock *flock.Flock }

// ErrHeld is Hold's error when another process holds the lock.
var ErrHeld = errors.New("held by another owt process")

// Hold takes the lock of key without waiting; it fails when another
// process holds it (ErrHeld).
func Hold(key string) (*Held, error) {
	l, err := keyedLock("locks", "", key)
	if err != nil {
		return nil, err
	}
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", l.Path(), err)
	}
	if !ok {
		return nil, fmt.Errorf("lock %s: %w", l.Path(), ErrHeld)
	}
	return &Held{lock: l}, nil
}

// Release lets the lock go.
func (h *Held) Release() {
	if h != nil {
		_ = h.lock.Unlock()
	}
}

// IsHeld reports whether some process holds the lock of key now.
func IsHeld(key string) bool {
	l, err := keyedLock("locks", "", key)
	if err != nil {
		return false
	}
	if _, err := os.Stat(l.Path()); err != nil {
		return false
	}
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

// LockAgent waits for and takes the lock of the agent called name of the
// repository at repoRoot: text typed into one agent by two processes at
// once would merge into one prompt. Keyed by both, so equal names in two
// repos do not wait for each other. The returned function releases it.
func LockAgent(repoRoot, name string) (unlock func(), err error) {
	l, err := keyedLock("agents", name, Key{Repo: repoRoot, Name: name}.String())
	if err != nil {
		return nil, err
	}
	if err := l.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s for sending: %w", name, err)
	}
	return func() { _ = l.Unlock() }, nil
}

// LockRestart waits for and takes the lock of starting the agent called
// name of the repository at repoRoot again (owt restore, owt attach,
// doctor --fix, a run's resume): two of them at once would each see its
// session gone and start two agents in one worktree.
func LockRestart(repoRoot, name string) (unlock func(), err error) {
	l, err := keyedLock("restarts", name, Key{Repo: repoRoot, Name: name}.String())
	if err != nil {
		return nil, err
	}
	if err := l.Lock(); err != nil {
		return nil, fmt.Errorf("lock %s for a restart: %w", name, err)
	}
	return func() { _ = l.Unlock() }, nil
}
