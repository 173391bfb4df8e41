package engine

import (
	"os"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/stretchr/testify/require"
)

// A run file that turns corrupt while the run is in flight is said once
// per change in the monitor's log, not on every tick.
func TestACorruptRunFileIsLoggedOncePerChange(t *testing.T) {
	store := run.Store{Dir: t.TempDir()}
	r := engineRun(t, "")
	r.State = run.Stopped // nothing to drive: the engine only loads it
	require.NoError(t, store.Create(r))
	var logged []string
	e := &Engine{Store: store, Socket: r.Socket, Log: func(_ owtlog.Fields, f string, args ...any) { logged = append(logged, f) }}
	e.Tick(time.Now())
	e.live = []string{r.Name} // as if it had been in flight at the last listing

	// Written in place: the dir's mtime may stay, so the run stays listed.
	require.NoError(t, os.WriteFile(store.Path(r.Name), []byte(`{"vers`), 0o600))
	for range 5 {
		e.Tick(time.Now())
	}
	require.Len(t, logged, 1, "once, not every tick: %v", logged)

	require.NoError(t, os.WriteFile(store.Path(r.Name), []byte(`{"version": 99}`), 0o600))
	for range 3 {
		e.Tick(time.Now())
	}
	require.Len(t, logged, 2, "again once it says something else")

	// Listed among others: every write of another run changes the dir,
	// and the broken file is still said once.
	other := engineRun(t, "")
	other.Name, other.State = "other", run.Stopped
	require.NoError(t, store.Create(other))
	e.Tick(time.Now())
	require.Len(t, logged, 2, "still said once, under its own name (it stays live): %v", logged)
	require.Contains(t, e.live, r.Name, "an unreadable run of this engine's is not dropped")
	for i := range 3 {
		require.NoError(t, store.Update("other", func(o *run.Run) ([]run.Event, error) {
			o.UpdatedAt = o.UpdatedAt.Add(time.Duration(i+1) * time.Second)
			return nil, nil
		}))
		e.Tick(time.Now())
	}
	require.Len(t, logged, 2, "not again on every listing: %v", logged)
}
