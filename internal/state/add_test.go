package state

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A record added through AddRecordUnsynced is the very record file an
// Update adding it would write, and no other record's file is written:
// first, between, last, into a repository with no record yet and with no
// state yet; fn sees the records there are.
func TestAddRecordWritesWhatUpdateWould(t *testing.T) {
	tempState(t)
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	record := func(repo, n string, port int) *Record {
		return &Record{Name: n, Repo: repo, Path: "/wt/" + n, Task: "task <" + n + ">\n    \"x\": {", Status: Starting, StatusSince: at, CreatedAt: at, Port: port,
			Creating: true, Hooks: []HookEvent{{Event: "Stop", Status: Idle, At: at}}}
	}
	cases := []struct {
		there []string
		add   string
	}{
		{[]string{"b", "d"}, "a"},
		{[]string{"b", "d"}, "c"},
		{[]string{"b", "d"}, "e"},
		{[]string{"b", "b-2", "bb"}, "b-1"},
		{[]string{}, "a"},
		{nil, "a"}, // no state
	}
	for i, c := range cases {
		viaAll, viaAdd := ForRepo("/r/all"+string(rune('a'+i))), ForRepo("/r/add"+string(rune('a'+i)))
		for _, s := range []*Store{viaAll, viaAdd} {
			if c.there == nil {
				continue
			}
			require.NoError(t, s.Update(func(f *File) error {
				for j, n := range c.there {
					f.Records[n] = record(s.Repo, n, 4000+10*j)
				}
				return nil
			}))
		}
		before := inodes(t, viaAdd)
		require.NoError(t, viaAll.Update(func(f *File) error { f.Records[c.add] = record(viaAll.Repo, c.add, 5000); return nil }))
		var seen []string
		require.NoError(t, viaAdd.AddRecordUnsynced(func(there map[string]Brief) (*Record, error) {
			for n, b := range there {
				require.Equal(t, "/wt/"+n, b.Path)
				require.Positive(t, b.Port)
				seen = append(seen, n)
			}
			return record(viaAdd.Repo, c.add, 5000), nil
		}))
		sort.Strings(seen)
		if c.there != nil {
			require.Equal(t, c.there, append([]string{}, seen...), "case %d", i)
		}
		all, err := os.ReadFile(viaAll.recordPath(c.add))
		require.NoError(t, err)
		added, err := os.ReadFile(viaAdd.recordPath(c.add))
		require.NoError(t, err)
		require.Equal(t, string(all), string(bytes.ReplaceAll(added, []byte(viaAdd.Repo), []byte(viaAll.Repo))), "case %d: add %s to %v", i, c.add, c.there)
		after := inodes(t, viaAdd)
		for _, n := range c.there {
			require.True(t, os.SameFile(before[n], after[n]), "case %d: the record of %s was not written", i, n)
		}
		f, err := viaAdd.Load()
		require.NoError(t, err)
		require.Equal(t, Starting, f.Records[c.add].Status)
		require.Len(t, f.Records, len(c.there)+1)
	}
}

// inodes are the store's record files as they are now, by name: a file
// written since is another (atomic writes rename a new file in).
func inodes(t *testing.T, s *Store) map[string]os.FileInfo {
	t.Helper()
	out := map[string]os.FileInfo{}
	entries, err := os.ReadDir(s.RecordsDir())
	if errors.Is(err, os.ErrNotExist) {
		return out
	}
	require.NoError(t, err)
	for _, e := range entries {
		if name, ok := unescapeName(strings.TrimSuffix(e.Name(), ".json")); ok && strings.HasSuffix(e.Name(), ".json") {
			fi, err := os.Stat(filepath.Join(s.RecordsDir(), e.Name()))
			require.NoError(t, err)
			out[name] = fi
		}
	}
	return out
}

// records is every record file of the store, by file name, as bytes.
func recordFiles(t *testing.T, s *Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(s.RecordsDir())
	if errors.Is(err, os.ErrNotExist) {
		return out
	}
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(s.RecordsDir(), e.Name()))
		require.NoError(t, err)
		out[e.Name()] = string(data)
	}
	return out
}

func TestAddRecordRefusesATakenNameAndWritesNothingOnError(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, s.Update(func(f *File) error { f.Records["a"] = &Record{Name: "a", Status: Idle}; return nil }))
	before := recordFiles(t, s)
	require.Error(t, s.AddRecordUnsynced(func(map[string]Brief) (*Record, error) { return &Record{Name: "a"}, nil }))
	boom := errors.New("boom")
	require.ErrorIs(t, s.AddRecordUnsynced(func(map[string]Brief) (*Record, error) { return nil, boom }), boom)
	require.NoError(t, s.AddRecordUnsynced(func(map[string]Brief) (*Record, error) { return nil, nil }))
	require.Equal(t, before, recordFiles(t, s))
}

// A file laid out otherwise (compact) still takes the record; a corrupt
// one is set aside and rebuilt first, and fn sees the rebuilt records.
func TestAddRecordToAFileLaidOutOtherwiseOrCorrupt(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, os.MkdirAll(ReposDir(), 0o700))
	require.NoError(t, os.WriteFile(s.Path, []byte(`{"version":1,"repo":"/r","worktrees":{"b":{"name":"b","port":4000}}}`), 0o600))
	require.NoError(t, s.AddRecordUnsynced(func(there map[string]Brief) (*Record, error) {
		require.Equal(t, 4000, there["b"].Port)
		return &Record{Name: "a", Status: Starting}, nil
	}))
	f, err := s.Load()
	require.NoError(t, err)
	require.Len(t, f.Records, 2)

	s.Warn = func(string) {}
	s.Rebuild = func(f *File) error { f.Records["r"] = &Record{Name: "r", Port: 4100}; return nil }
	require.NoError(t, os.WriteFile(s.Path, []byte(`{"version":1,"repo":"/r","worktrees":{"b":{"name":"x"}}}`), 0o600))
	require.NoError(t, s.AddRecordUnsynced(func(there map[string]Brief) (*Record, error) {
		require.Equal(t, 4100, there["r"].Port, "the rebuilt records")
		return &Record{Name: "c"}, nil
	}))
	f, err = s.Load()
	require.NoError(t, err)
	require.Contains(t, f.Records, "c")
	require.Contains(t, f.Records, "r")
}

// Ports elsewhere are every other repository's, none of this one's, and
// none of a broken file's.
func TestPortsElsewhere(t *testing.T) {
	tempState(t)
	here, there := ForRepo("/here"), ForRepo("/there")
	require.NoError(t, here.Update(func(f *File) error { f.Records["a"] = &Record{Name: "a", Port: 4000}; return nil }))
	require.NoError(t, there.Update(func(f *File) error {
		f.Records["b"] = &Record{Name: "b", Port: 4010}
		f.Records["c"] = &Record{Name: "c"}
		return nil
	}))
	require.NoError(t, os.WriteFile(ReposDir()+"/broken.json", []byte("{"), 0o600))
	ports, err := here.PortsElsewhere()
	require.NoError(t, err)
	require.Equal(t, []int{4010}, ports)
}

// Version 1 files that look laid out as owt wrote them, but are not: a
// member after "worktrees" whose object has keys at the records' depth,
// an object nested in a record with its keys there too, a record twice.
// Each is migrated as every reader reads it: the records are the ones
// under "worktrees", the last of two alike; a record file a migration
// left that the file (written again by an older owt) no longer has goes.
func TestOddVersion1FilesMigrateAsTheyRead(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, os.MkdirAll(ReposDir(), 0o700))
	write := func(doc string) {
		require.NoError(t, os.WriteFile(s.Path, []byte(doc), 0o600))
	}
	status := func(name string) Status {
		f, err := s.Load()
		require.NoError(t, err)
		require.Contains(t, f.Records, name)
		return f.Records[name].Status
	}
	memberAfter := "{\n  \"version\": 1,\n  \"repo\": \"/r\",\n  \"worktrees\": {\n    \"c\": {\n      \"name\": \"c\",\n      \"status\": \"idle\"\n    }\n  },\n" +
		"  \"hosts\": {\n    \"a\": {\n      \"name\": \"a\",\n      \"status\": \"idle\"\n    },\n    \"z\": {\n      \"name\": \"z\"\n    }\n  }\n}\n"
	write(memberAfter)
	require.NoError(t, s.AddRecordUnsynced(func(map[string]Brief) (*Record, error) { return &Record{Name: "z", Status: Starting}, nil }))
	require.Equal(t, Starting, status("z"), "added among the records, not into the member after them")
	write(memberAfter)
	require.NoError(t, s.UpdateRecordUnsynced("c", func(r *Record) error { r.Status = Working; return nil }))
	require.Equal(t, Working, status("c"))
	write(memberAfter)
	require.NoError(t, s.UpdateRecordUnsynced("a", func(r *Record) error {
		require.Nil(t, r, "no record a: the one under hosts is not a record")
		return nil
	}))

	nested := "{\n  \"version\": 1,\n  \"repo\": \"/r\",\n  \"worktrees\": {\n    \"a\": {\n      \"name\": \"a\",\n      \"status\": \"idle\"\n    },\n" +
		"    \"b\": {\"name\": \"b\", \"reactions\": {\"x\": {\n    \"a\": {\"name\": \"a\"}}}\n    }\n  }\n}\n"
	write(nested)
	require.NoError(t, s.UpdateRecordUnsynced("a", func(r *Record) error { r.Status = Working; return nil }))
	require.Equal(t, Working, status("a"), "the record a, not the object nested in b")

	twice := "{\n  \"version\": 1,\n  \"repo\": \"/r\",\n  \"worktrees\": {\n    \"a\": {\n      \"name\": \"a\",\n      \"status\": \"idle\"\n    },\n" +
		"    \"a\": {\n      \"name\": \"a\",\n      \"status\": \"waiting\"\n    }\n  }\n}\n"
	write(twice)
	require.NoError(t, s.UpdateRecordUnsynced("a", func(r *Record) error {
		require.Equal(t, Waiting, r.Status, "the record as readers take it: the last")
		r.Status = Working
		return nil
	}))
	require.Equal(t, Working, status("a"))
}
