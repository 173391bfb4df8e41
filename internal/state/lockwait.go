package state

import (
	"errors"
	"fmt"
	"time"

	"github.com/gofrs/flock"
)

// ErrLockBusy is the error of a lock another process held for longer than
// lockWait.
var ErrLockBusy = errors.New("another owt process holds it")

// lockWait bounds the wait for a state lock. Its holders keep it for a
// read and a write (milliseconds, a few seconds on a loaded machine); one
// that keeps it longer is stopped or wedged (a monitor stopped with
// SIGSTOP, a disk that stopped answering). Without a bound every owt
// command after it, and every agent's hook, would wait for it forever
// without a word; with one, each fails saying what it waited for.
var lockWait = 30 * time.Second

// waitLock takes l, shared or exclusive, waiting at most lockWait. The
// lock is tried at once (no wait when no one holds it), then again every
// few milliseconds: a blocking flock cannot be given up on, and a monitor
// must not keep a goroutine stuck on a lock it would take much later.
func waitLock(l *flock.Flock, shared bool) error {
	try := l.TryLock
	if shared {
		try = l.TryRLock
	}
	deadline := time.Now().Add(lockWait)
	for delay := time.Millisecond; ; delay = min(2*delay, 20*time.Millisecond) {
		ok, err := try()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("waited %s for the lock %s: %w (a stopped or wedged owt: a monitor stopped with SIGSTOP?)", lockWait, l.Path(), ErrLockBusy)
		}
		time.Sleep(delay)
	}
}
