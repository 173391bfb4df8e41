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
	// Names and texts that look like the layout the record is found by:
	// a name that starts another's, a task with "\n    }" and a quoted
	// name in it (escaped in the JSON, so never a line of the file).
	names := []string{"a", "ab", "b", "c-d", "z"}
	seed := func(s *Store) {
		require.NoError(t, s.Update(func(f *File) error {
			for _, n := range names {
				f.Records[n] = &Record{Name: n, Repo: s.Repo, Task: "fix <b> & \"quote\"\n    }\n    \"b\": {" + n, Status: Idle, StatusSince: at, CreatedAt: at,
					Hooks: []HookEvent{{Event: "Stop", Status: Idle, At: at}}}
			}
			return nil
		}))
	}
	change := func(r *Record) {
		r.Status, r.StatusSince, r.Task = Working, at.Add(time.Minute), "now <working>\n    }"
		r.Hooks = append(r.Hooks, HookEvent{Event: "UserPromptSubmit", Status: Working, At: at})
	}

	for _, name := range names {
		viaAll, viaOne := ForRepo("/r/all-"+name), ForRepo("/r/one-"+name)
		seed(viaAll)
		seed(viaOne)
		seeded, err := os.ReadFile(viaOne.Path)
		require.NoError(t, err)
		_, _, spliced := viaOne.recordSpan(seeded, name)
		require.True(t, spliced, "the record %s is found in the file as owt wrote it: only it is decoded", name)
		require.NoError(t, viaAll.Update(func(f *File) error { change(f.Records[name]); return nil }))
		require.NoError(t, viaOne.UpdateRecordUnsynced(name, func(r *Record) error { change(r); return nil }))
		all, err := os.ReadFile(viaAll.Path)
		require.NoError(t, err)
		one, err := os.ReadFile(viaOne.Path)
		require.NoError(t, err)
		require.Equal(t, string(all), string(bytes.ReplaceAll(one, []byte("/r/one-"), []byte("/r/all-"))), "record %s", name)

		f, err := viaOne.Load()
		require.NoError(t, err)
		for _, n := range names {
			want := Idle
			if n == name {
				want = Working
			}
			require.Equal(t, want, f.Records[n].Status, "record %s after a change to %s", n, name)
		}
	}
}

// A file laid out otherwise than owt writes it (compact, edited by hand)
// is still changed right, and written back as owt lays it out; one with
// a record that is not the one it is filed under is recovered.
func TestUpdateRecordOfAFileLaidOutOtherwise(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, os.MkdirAll(ReposDir(), 0o700))
	require.NoError(t, os.WriteFile(s.Path, []byte(`{"version":1,"repo":"/r","worktrees":{"a":{"name":"a","status":"idle"},"b":{"name":"b","status":"idle"}}}`), 0o600))
	require.NoError(t, s.UpdateRecordUnsynced("b", func(r *Record) error { r.Status = Working; return nil }))
	f, err := s.Load()
	require.NoError(t, err)
	require.Equal(t, Working, f.Records["b"].Status)
	require.Equal(t, Idle, f.Records["a"].Status)
	data, err := os.ReadFile(s.Path)
	require.NoError(t, err)
	start, end, ok := s.recordSpan(data, "b")
	require.True(t, ok, "written back as Write lays it out:\n%s", data)
	require.Contains(t, string(data[start:end]), `"status": "working"`)
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
