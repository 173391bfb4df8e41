package state

import (
	"os"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// allRecords is what AllRecords reads: every store Peek reads, by repo.
func allRecords(t *testing.T) []*Record {
	t.Helper()
	stores, err := Stores()
	require.NoError(t, err)
	sort.Slice(stores, func(i, j int) bool { return stores[i].Repo < stores[j].Repo })
	var out []*Record
	for _, s := range stores {
		if f, err := s.Peek(); err == nil {
			out = append(out, f.Sorted()...)
		}
	}
	return out
}

// The Reader reads what Stores and Peek read, decoding again only the
// files that changed; a repository with a corrupt record is skipped, as
// Peek's error skips it; a version 1 file reads whole.
func TestReaderReadsWhatPeekReadsAndOnlyWhatChanged(t *testing.T) {
	tempState(t)
	var rd Reader
	_, _, _, err := rd.Read()
	require.ErrorIs(t, err, os.ErrNotExist)

	a, b, old := ForRepo("/r/a"), ForRepo("/r/b"), ForRepo("/r/old")
	require.NoError(t, a.Update(func(f *File) error {
		f.Records["x"] = &Record{Name: "x", Task: "x's"}
		f.Records["Y/z"] = &Record{Name: "Y/z"}
		return nil
	}))
	require.NoError(t, b.Update(func(f *File) error { f.Records["w"] = &Record{Name: "w"}; return nil }))
	writeV1(t, old, 2)

	recs, changed, skipped, err := rd.Read()
	require.NoError(t, err)
	require.True(t, changed)
	require.Empty(t, skipped)
	require.Equal(t, allRecords(t), recs)
	require.Len(t, recs, 5)

	again, changed, _, err := rd.Read()
	require.NoError(t, err)
	require.False(t, changed, "nothing was written")
	require.Equal(t, recs, again)

	require.NoError(t, a.UpdateRecordUnsynced("x", func(r *Record) error { r.Status = Working; return nil }))
	again, changed, _, err = rd.Read()
	require.NoError(t, err)
	require.True(t, changed)
	require.Equal(t, allRecords(t), again)
	byName := func(rs []*Record) map[string]*Record {
		m := map[string]*Record{}
		for _, r := range rs {
			m[r.Repo+r.Name] = r
		}
		return m
	}
	before, after := byName(recs), byName(again)
	require.NotSame(t, before["x"], after["x"], "read again")
	require.Equal(t, Working, after["x"].Status)
	require.Same(t, before["w"], after["w"], "not read again")

	require.NoError(t, os.WriteFile(b.recordPath("w"), []byte("{"), 0o600))
	require.NoError(t, a.Update(func(f *File) error { delete(f.Records, "Y/z"); return nil }))
	again, changed, skipped, err = rd.Read()
	require.NoError(t, err)
	require.True(t, changed)
	require.Len(t, skipped, 1)
	require.Equal(t, b.Repo, skipped[0].Repo)
	require.ErrorIs(t, skipped[0].Err, ErrCorrupt)
	require.Equal(t, allRecords(t), again)
	require.Len(t, again, 3, "x, and old's two")

	require.NoError(t, os.Remove(old.Path))
	again, changed, _, err = rd.Read()
	require.NoError(t, err)
	require.True(t, changed)
	require.Len(t, again, 1)
}

// A records folder unchanged since a look well after its last change is
// not listed again (every owt write renames a file in, which changes the
// folder); any rename into it is seen at the next Read, and with it a
// file rewritten in place meanwhile.
func TestReaderListsAFolderAgainOnlyWhenItChanged(t *testing.T) {
	tempState(t)
	a := ForRepo("/r/a")
	require.NoError(t, a.Update(func(f *File) error {
		f.Records["x"] = &Record{Name: "x"}
		f.Records["y"] = &Record{Name: "y"}
		return nil
	}))
	var rd Reader
	now := time.Now()
	require.NoError(t, os.Chtimes(a.RecordsDir(), now, now)) // changed just now, whatever the machine's pace
	_, _, _, err := rd.Read()
	require.NoError(t, err)

	// Within dirSettle of its last change, a folder is listed every time:
	// a file written in place is read at once.
	require.NoError(t, os.WriteFile(a.recordPath("y"), []byte(`{"name":"y","status":"working"}`), 0o600))
	recs, changed, _, err := rd.Read()
	require.NoError(t, err)
	require.True(t, changed)
	require.Equal(t, Working, byNameOf(recs)["y"].Status)

	// Settled: the folder's last change long before the look.
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(a.RecordsDir(), old, old))
	_, _, _, err = rd.Read()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(a.recordPath("y"), []byte(`{"name":"y","status":"waiting"}`), 0o600))
	recs, changed, _, err = rd.Read()
	require.NoError(t, err)
	require.False(t, changed, "not listed again")
	require.Equal(t, Working, byNameOf(recs)["y"].Status, "the last look's")

	require.NoError(t, a.UpdateRecordUnsynced("x", func(r *Record) error { r.Status = Idle; return nil }))
	recs, changed, _, err = rd.Read()
	require.NoError(t, err)
	require.True(t, changed)
	require.Equal(t, Idle, byNameOf(recs)["x"].Status)
	require.Equal(t, Waiting, byNameOf(recs)["y"].Status, "listed again: the file rewritten in place too")
	require.Equal(t, allRecords(t), recs)
}

func byNameOf(rs []*Record) map[string]*Record {
	m := map[string]*Record{}
	for _, r := range rs {
		m[r.Name] = r
	}
	return m
}
