package state

import (
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/stretchr/testify/require"
)

// A repository lock held by a process that stopped (a monitor stopped
// with SIGSTOP while it wrote a record) fails a write after lockWait,
// saying what it waited for, where it waited forever; and the write goes
// through once the lock is free.
func TestAStateLockHeldTooLongFailsTheWriteInsteadOfHangingIt(t *testing.T) {
	tempState(t)
	defer func(d time.Duration) { lockWait = d }(lockWait)
	lockWait = 300 * time.Millisecond
	s := ForRepo("/r/app")
	require.NoError(t, s.Update(func(f *File) error {
		f.Records["a"] = &Record{Name: "a", Repo: s.Repo, Status: Idle}
		return nil
	}))
	writes := map[string]func() error{
		s.Path + ".lock": func() error { // the repository's lock
			return s.Update(func(f *File) error { f.Records["a"].Task = "changed"; return nil })
		},
		s.recordLock("a"): func() error { // the record's own lock
			return s.UpdateRecord("a", func(r *Record) error { r.Task = "changed"; return nil })
		},
	}
	for path, write := range writes {
		holder := flock.New(path) // another open file: its flock holds against this process too
		ok, err := holder.TryLock()
		require.NoError(t, err)
		require.True(t, ok)

		start := time.Now()
		err = write()
		require.ErrorIs(t, err, ErrLockBusy, path)
		require.Contains(t, err.Error(), path)
		require.Less(t, time.Since(start), 5*time.Second)
		// Again, while the first waiter still waits: the same answer.
		require.ErrorIs(t, write(), ErrLockBusy, path)
		f, err := s.Load()
		require.NoError(t, err)
		require.Empty(t, f.Records["a"].Task, "nothing was written")

		require.NoError(t, holder.Unlock())
		require.NoError(t, write(), "the lock is free again")
		require.NoError(t, s.Update(func(f *File) error { f.Records["a"].Task = ""; return nil }))
	}
}
