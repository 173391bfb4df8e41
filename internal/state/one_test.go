package state

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A change to one record through UpdateRecordUnsynced writes the very
// document a change through Update would: same bytes, the other records
// as they were.
func TestUpdateRecordWritesWhatUpdateWould(t *testing.T) {
	tempState(t)
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	seed := func(s *Store) {
		require.NoError(t, s.Update(func(f *File) error {
			for _, n := range []string{"a", "b", "c"} {
				f.Records[n] = &Record{Name: n, Repo: s.Repo, Task: "fix <b> & \"quote\" " + n, Status: Idle, StatusSince: at, CreatedAt: at,
					Hooks: []HookEvent{{Event: "Stop", Status: Idle, At: at}}}
			}
			return nil
		}))
	}
	change := func(r *Record) { r.Status, r.StatusSince, r.Task = Working, at.Add(time.Minute), "now <working>" }

	viaAll, viaOne := ForRepo("/r/all"), ForRepo("/r/one")
	seed(viaAll)
	seed(viaOne)
	require.NoError(t, viaAll.Update(func(f *File) error { change(f.Records["b"]); return nil }))
	require.NoError(t, viaOne.UpdateRecordUnsynced("b", func(r *Record) error { change(r); return nil }))
	all, err := os.ReadFile(viaAll.Path)
	require.NoError(t, err)
	one, err := os.ReadFile(viaOne.Path)
	require.NoError(t, err)
	require.Equal(t, string(all), string(bytes.ReplaceAll(one, []byte("/r/one"), []byte("/r/all"))))

	f, err := viaOne.Load()
	require.NoError(t, err)
	require.Equal(t, Working, f.Records["b"].Status)
	require.Equal(t, Idle, f.Records["a"].Status)
}

func TestUpdateRecordOfNoRecordAndNoChangeWriteNothing(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, s.Update(func(f *File) error { f.Records["a"] = &Record{Name: "a", Status: Idle}; return nil }))
	before, err := os.Stat(s.Path)
	require.NoError(t, err)
	time.Sleep(10 * time.Millisecond)

	var got *Record
	require.NoError(t, s.UpdateRecordUnsynced("ghost", func(r *Record) error { got = r; return nil }))
	require.Nil(t, got, "no such record: fn is given nil")
	require.NoError(t, s.UpdateRecordUnsynced("a", func(r *Record) error { r.Status = Working; return ErrNoChange }))
	after, err := os.Stat(s.Path)
	require.NoError(t, err)
	require.Equal(t, before.ModTime(), after.ModTime(), "nothing written")

	boom := errors.New("boom")
	require.ErrorIs(t, s.UpdateRecordUnsynced("a", func(r *Record) error { r.Status = Working; return boom }), boom)
	f, err := s.Load()
	require.NoError(t, err)
	require.Equal(t, Idle, f.Records["a"].Status, "a failed change writes nothing")
}

// A corrupt file goes the way of every update: set aside and rebuilt
// (here by a store that rebuilds one record), then changed.
func TestUpdateRecordOfACorruptFileRebuildsIt(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	s.Warn = func(string) {}
	s.Rebuild = func(f *File) error {
		f.Records["a"] = &Record{Name: "a", Status: Idle}
		return nil
	}
	require.NoError(t, os.MkdirAll(ReposDir(), 0o700))
	require.NoError(t, os.WriteFile(s.Path, []byte(`{"version":1,"repo":"/r","worktrees":{"a":{"name":"b"}}}`), 0o600))
	require.NoError(t, s.UpdateRecordUnsynced("a", func(r *Record) error { r.Status = Working; return nil }))
	f, err := s.Load()
	require.NoError(t, err)
	require.Equal(t, Working, f.Records["a"].Status)
}
