package state

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// ErrLockBusy is the error of a lock another process held for longer than
// lockWait.
var ErrLockBusy = errors.New("another owt process holds it")

// lockWait bounds the wait for the state's own locks: a repository's, a
// record's, and WithLock's. Their holders keep them for a read and a write
// (milliseconds, a few seconds on a loaded machine); one that keeps them
// longer is stopped or wedged (a monitor stopped with SIGSTOP, a disk that
// stopped answering). Without a bound every owt command after it, and
// every agent's hook, would wait for it forever without a word; with one,
// each fails saying what it waited for. (JSONFile's locks are not bounded:
// a spawn holds its spawner's for a whole owt new.)
var lockWait = 30 * time.Second

// abandoned are the lock files a blocking waiter given up on still waits
// for: a process waits for those by trying again every few milliseconds,
// so a holder stopped for hours costs the monitor one stuck thread per
// lock, not one per attempt.
var abandoned sync.Map

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
	busy := fmt.Errorf("waited %s for the lock %s: %w (a stopped or wedged owt: a monitor stopped with SIGSTOP?)", lockWait, l.Path(), ErrLockBusy)
	if _, stuck := abandoned.Load(l.Path()); stuck {
		for deadline := time.Now().Add(lockWait); time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			if ok, err := try(); err != nil || ok {
				return err
			}
		}
		return busy
	}
	got := make(chan error, 1)
	go func() { got <- lock() }()
	timer := time.NewTimer(lockWait)
	defer timer.Stop()
	select {
	case err := <-got:
		return err
	case <-timer.C:
		abandoned.Store(l.Path(), true)
		go func() {
			if <-got == nil {
				_ = l.Unlock()
			}
			abandoned.Delete(l.Path())
		}()
		return busy
	}
}
