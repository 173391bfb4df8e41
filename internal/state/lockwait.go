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

// waitLock takes l, shared or exclusive, waiting at most lockWait. A
// free lock is taken at once. A held one is waited for by a blocking
// flock, which the kernel wakes the moment the lock is free, in a
// goroutine of its own: given up on, that goroutine lets the lock go as
// soon as it gets it, so a long-lived process (the monitor) never keeps
// a lock nobody uses.
func waitLock(l *flock.Flock, shared bool) error {
	try, lock := l.TryLock, l.Lock
	if shared {
		try, lock = l.TryRLock, l.RLock
	}
	if ok, err := try(); err != nil || ok {
		return err
	}
	got := make(chan error, 1)
	go func() { got <- lock() }()
	timer := time.NewTimer(lockWait)
	defer timer.Stop()
	select {
	case err := <-got:
		return err
	case <-timer.C:
		go func() {
			if <-got == nil {
				_ = l.Unlock()
			}
		}()
		return fmt.Errorf("waited %s for the lock %s: %w (a stopped or wedged owt: a monitor stopped with SIGSTOP?)", lockWait, l.Path(), ErrLockBusy)
	}
}
