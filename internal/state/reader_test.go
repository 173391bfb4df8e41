package state

import (
	"os"
	"sort"
	"testing"

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
