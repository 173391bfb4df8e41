package fswatch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func changedSoon(t *testing.T, w *Watcher, key string) {
	t.Helper()
	require.Eventually(t, func() bool { return slices.Contains(w.Changed(time.Now()), key) },
		5*time.Second, 10*time.Millisecond, "%s never read as changed", key)
}

// settle reads the changes until two reads in a row see none, and
// returns what they saw: one write is several events (create, modify,
// close), which the watcher may take in after the first of them was read
// as a change.
func settle(t *testing.T, w *Watcher) (seen []string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for quiet := 0; quiet < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the watcher never settled")
		}
		time.Sleep(50 * time.Millisecond)
		changed := w.Changed(time.Now())
		seen = append(seen, changed...)
		if len(changed) == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
	return seen
}

func TestAKeyChangesOnlyWhenItsFoldersDo(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	require.NoError(t, os.MkdirAll(filepath.Join(a, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(a, "skip"), 0o755))
	require.NoError(t, os.MkdirAll(b, 0o755))
	var logged []string
	w, err := New(10, 100, time.Hour, func(f string, args ...any) { logged = append(logged, f) })
	require.NoError(t, err)
	defer w.Close()

	// Asking keep may cost a process (the monitor asks git): it is asked
	// about folders, never about a file written in a watched one.
	var mu sync.Mutex
	var asked []string
	keep := func(d string) bool {
		mu.Lock()
		asked = append(asked, d)
		mu.Unlock()
		return filepath.Base(d) != "skip"
	}
	dirs, err := Tree(a, keep)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{a, filepath.Join(a, "sub")}, dirs)
	require.True(t, w.Watch("a", dirs, keep))
	require.True(t, w.Watch("b", []string{b}, nil))
	require.Empty(t, w.Changed(time.Now()), "a new key is no change")

	require.NoError(t, os.WriteFile(filepath.Join(a, "sub", "f"), []byte("x"), 0o644))
	var seen []string
	require.Eventually(t, func() bool {
		seen = append(seen, w.Changed(time.Now())...)
		return slices.Contains(seen, "a")
	}, 5*time.Second, 10*time.Millisecond, "a never read as changed")
	seen = append(seen, settle(t, w)...)
	require.NotContains(t, seen, "b", "b did not change")

	require.NoError(t, os.WriteFile(filepath.Join(a, "skip", "f"), []byte("x"), 0o644))
	time.Sleep(100 * time.Millisecond) // an event, were there one, would be in by now
	require.Empty(t, w.Changed(time.Now()), "a skipped folder is not watched")

	// A folder made later is watched too, with what it holds.
	require.NoError(t, os.MkdirAll(filepath.Join(a, "new", "deep"), 0o755))
	changedSoon(t, w, "a")
	require.Eventually(t, func() bool { return w.Watches() == 5 }, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, os.WriteFile(filepath.Join(a, "new", "deep", "f"), []byte("x"), 0o644))
	changedSoon(t, w, "a")

	w.Forget("a")
	require.Equal(t, 1, w.Watches())
	require.Empty(t, logged)
	mu.Lock()
	defer mu.Unlock()
	require.Contains(t, asked, filepath.Join(a, "new"), "a folder made later is asked about")
	for _, p := range asked {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		require.True(t, fi.IsDir(), "keep was asked about the file %s", p)
	}
}

func TestAKeyBeyondItsBoundIsPolledAndSaidOnce(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for i := 0; i < 5; i++ {
		d := filepath.Join(root, strings.Repeat("d", i+1))
		require.NoError(t, os.Mkdir(d, 0o755))
		dirs = append(dirs, d)
	}
	var logged []string
	w, err := New(3, 100, time.Minute, func(f string, args ...any) { logged = append(logged, f) })
	require.NoError(t, err)
	defer w.Close()
	require.False(t, w.Watch("big", dirs, nil))
	require.False(t, w.Watch("big", dirs, nil))
	require.Len(t, logged, 1)
	require.Equal(t, 0, w.Watches())
	now := time.Now()
	require.Equal(t, []string{"big"}, w.Changed(now))
	require.Empty(t, w.Changed(now.Add(time.Second)))
	require.Equal(t, []string{"big"}, w.Changed(now.Add(2*time.Minute)), "polled: changed every PollEvery")
}
