package state

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"
)

func tempState(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
}

// TestHelperWriter is not a test: re-executed as a separate process, it adds
// one record, so concurrent writers are real processes with their own locks.
func TestHelperWriter(t *testing.T) {
	name := os.Getenv("OWT_STATE_HELPER_NAME")
	if name == "" {
		t.Skip("helper process only")
	}
	s := ForRepo(os.Getenv("OWT_STATE_HELPER_REPO"))
	err := s.Update(func(f *File) error {
		f.Records[name] = &Record{Name: name, Status: Starting, CreatedAt: time.Now()}
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	tempState(t)
	repo := "/tmp/some/repo"
	const goroutines, processes = 100, 100

	var wg sync.WaitGroup
	errs := make(chan error, goroutines+processes)
	for i := 0; i < goroutines; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs <- ForRepo(repo).Update(func(f *File) error {
				n := fmt.Sprintf("g%d", i)
				f.Records[n] = &Record{Name: n, Status: Starting}
				return nil
			})
		}(i)
	}
	for i := 0; i < processes; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
			cmd.Env = append(os.Environ(), fmt.Sprintf("OWT_STATE_HELPER_NAME=p%d", i), "OWT_STATE_HELPER_REPO="+repo)
			out, err := cmd.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("%w: %s", err, out)
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	f, err := ForRepo(repo).Load()
	require.NoError(t, err)
	require.Len(t, f.Records, goroutines+processes)
	for i := 0; i < goroutines; i++ {
		require.Contains(t, f.Records, fmt.Sprintf("g%d", i))
		require.Contains(t, f.Records, fmt.Sprintf("p%d", i))
	}
	info, err := os.Stat(ForRepo(repo).Path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

// A corrupt record file costs that agent's record alone: set aside, it
// is rebuilt, and the others are read as they were.
func TestCorruptFileMovedAsideAndRebuilt(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, s.Update(func(f *File) error {
		f.Records["a"] = &Record{Name: "a", Task: "a's task"}
		f.Records["b"] = &Record{Name: "b", Task: "b's task"}
		return nil
	}))
	require.NoError(t, os.WriteFile(s.recordPath("a"), []byte("{not json"), 0o600))
	_, err := s.Peek()
	require.ErrorIs(t, err, ErrCorrupt, "Peek never recovers")

	var warned string
	s.Warn = func(m string) { warned = m }
	s.Rebuild = func(f *File) error {
		f.Records["a"] = &Record{Name: "a", Recovered: true}
		f.Records["b"] = &Record{Name: "b", Recovered: true}
		return nil
	}
	f, err := s.Load()
	require.NoError(t, err)
	require.True(t, f.Records["a"].Recovered)
	require.False(t, f.Records["b"].Recovered, "b's record is its own, not rebuilt")
	require.Equal(t, "b's task", f.Records["b"].Task)
	require.Contains(t, warned, "corrupt")
	require.Contains(t, warned, "rebuilt the record of a")

	aside, err := filepath.Glob(s.recordPath("a") + ".corrupt-*")
	require.NoError(t, err)
	require.Len(t, aside, 1)
	data, err := os.ReadFile(aside[0])
	require.NoError(t, err)
	require.Equal(t, "{not json", string(data), "the corrupt file is kept for inspection")

	again, err := s.Peek()
	require.NoError(t, err)
	require.Contains(t, again.Records, "a", "the rebuilt state was written")
}

func TestFailedUpdateWritesNothing(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	err := s.Update(func(f *File) error {
		f.Records["x"] = &Record{Name: "x"}
		return errors.New("boom")
	})
	require.EqualError(t, err, "boom")
	_, statErr := os.Stat(s.Path)
	require.True(t, errors.Is(statErr, os.ErrNotExist))
}

func TestStoresListsEveryRepo(t *testing.T) {
	tempState(t)
	for _, r := range []string{"/a/x", "/b/x"} {
		require.NoError(t, ForRepo(r).Update(func(*File) error { return nil }))
	}
	ss, err := Stores()
	require.NoError(t, err)
	require.Len(t, ss, 2)
	require.NotEqual(t, ForRepo("/a/x").Path, ForRepo("/b/x").Path)
}

func TestStoreWithoutRebuildNeverRecovers(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, s.Update(func(f *File) error {
		f.Records["a"] = &Record{Name: "a"}
		return nil
	}))
	require.NoError(t, os.WriteFile(s.Path, []byte("{broken"), 0o600))
	stores, err := Stores()
	require.NoError(t, err)
	require.Empty(t, stores, "an unreadable file is not listed")

	other := &Store{Repo: "/r", Path: s.Path} // as another repo's owt sees it
	_, err = other.Load()
	require.ErrorIs(t, err, ErrCorrupt)
	err = other.Update(func(*File) error { return nil })
	require.ErrorIs(t, err, ErrCorrupt)
	data, _ := os.ReadFile(s.Path)
	require.Equal(t, "{broken", string(data), "left alone for its own repo to recover")
}

func TestNewerSchemaIsLeftAlone(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	s.Rebuild = func(*File) error { return nil }
	require.NoError(t, os.MkdirAll(filepath.Dir(s.Path), 0o700))
	newer := `{"version": 99, "repo": "/r", "worktrees": {}}`
	require.NoError(t, os.WriteFile(s.Path, []byte(newer), 0o600))
	_, err := s.Load()
	require.ErrorIs(t, err, ErrNewer)
	require.Contains(t, err.Error(), "upgrade owt")
	data, _ := os.ReadFile(s.Path)
	require.Equal(t, newer, string(data))
	aside, _ := filepath.Glob(s.Path + ".corrupt-*")
	require.Empty(t, aside)
}

func TestLogWriterFollowsTheLogWhenItIsRemoved(t *testing.T) {
	tempState(t)
	w := &LogWriter{}
	_, err := w.Write([]byte("one\n"))
	require.NoError(t, err)
	require.NoError(t, os.Remove(LogPath()))
	_, err = w.Write([]byte("two\n"))
	require.NoError(t, err)
	data, err := os.ReadFile(LogPath())
	require.NoError(t, err)
	require.Equal(t, "two\n", string(data), "the line went to the log there is now")
	f, err := os.Open(LogPath())
	require.NoError(t, err)
	defer f.Close()
	require.True(t, IsLog(f))
}
