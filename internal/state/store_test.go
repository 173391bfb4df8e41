package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/stretchr/testify/require"
)

// writeV1 writes a version 1 state file (every record in it) of n
// records a0…, as an older owt wrote it.
func writeV1(t *testing.T, s *Store, n int) []byte {
	t.Helper()
	f := &File{Version: 1, Repo: s.Repo, Records: map[string]*Record{}}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("a%d", i)
		f.Records[name] = &Record{Name: name, Repo: s.Repo, Task: "task of " + name, Status: Idle, Port: 4000 + 10*i}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	require.NoError(t, err)
	data = append(data, '\n')
	require.NoError(t, os.MkdirAll(filepath.Dir(s.Path), 0o700))
	require.NoError(t, os.WriteFile(s.Path, data, 0o600))
	return data
}

func requireV1Records(t *testing.T, f *File, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("a%d", i)
		require.Contains(t, f.Records, name)
		require.Equal(t, "task of "+name, f.Records[name].Task)
		require.Equal(t, 4000+10*i, f.Records[name].Port)
	}
}

// A version 1 file migrates on first use, in place: its backup beside
// it, byte for byte; a record file per agent; the index in its place,
// which an older owt refuses as a newer schema.
func TestVersion1StateMigratesWithABackup(t *testing.T) {
	tempState(t)
	s := ForRepo("/r/app")
	old := writeV1(t, s, 3)
	peeked, err := s.Peek()
	require.NoError(t, err)
	requireV1Records(t, peeked, 3)
	data, err := os.ReadFile(s.Path)
	require.NoError(t, err)
	require.Equal(t, string(old), string(data), "a peek migrates nothing")

	f, err := s.Load()
	require.NoError(t, err)
	require.Len(t, f.Records, 3)
	requireV1Records(t, f, 3)
	backup, err := os.ReadFile(s.Path + ".v1-backup")
	require.NoError(t, err)
	require.Equal(t, string(old), string(backup))
	var ix struct {
		Version   int
		Repo      string
		Worktrees map[string]any
	}
	data, err = os.ReadFile(s.Path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &ix))
	require.Equal(t, 2, ix.Version, "an older owt reads a newer schema and refuses it")
	require.Equal(t, "/r/app", ix.Repo)
	require.Empty(t, ix.Worktrees)
	require.Len(t, inodes(t, s), 3)
	stores, err := Stores()
	require.NoError(t, err)
	require.Len(t, stores, 1)
	require.Empty(t, UnreadableStores())

	// The hook's path migrates too.
	other := ForRepo("/r/other")
	writeV1(t, other, 2)
	require.NoError(t, other.UpdateRecordUnsynced("a1", func(r *Record) error { r.Status = Working; return nil }))
	f, err = other.Peek()
	require.NoError(t, err)
	require.Equal(t, Working, f.Records["a1"].Status)
	require.FileExists(t, other.Path+".v1-backup")
}

// A migration interrupted at any step (kill -9: the backup written, some
// record files written, a record file the version 1 file no longer has,
// a temp file) is redone by the next owt, from the version 1 file, which
// is still in force: exactly its records, nothing half-applied.
func TestAnInterruptedMigrationIsRedone(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	old := writeV1(t, s, 4)
	require.NoError(t, os.WriteFile(s.Path+".v1-backup", old, 0o600))
	require.NoError(t, os.MkdirAll(s.RecordsDir(), 0o700))
	half, err := encodeRecord(&Record{Name: "a0", Task: "an older content"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(s.recordPath("a0"), half, 0o600))
	gone, err := encodeRecord(&Record{Name: "gone", Task: "deleted by an older owt since"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(s.recordPath("gone"), gone, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(s.RecordsDir(), ".a1.json.owt-123"), []byte("{"), 0o600))

	f, err := s.Peek()
	require.NoError(t, err)
	require.Len(t, f.Records, 4, "until the index is written, the version 1 file is the state")
	f, err = s.Load()
	require.NoError(t, err)
	require.Len(t, f.Records, 4)
	requireV1Records(t, f, 4)
	require.NoFileExists(t, s.recordPath("gone"))
	backups, _ := filepath.Glob(s.Path + ".v1-backup*")
	require.Len(t, backups, 1, "the same backup, not a second")
}

// TestHelperMigrator is not a test: re-executed as a separate process, it
// migrates a store (and is killed while it does).
func TestHelperMigrator(t *testing.T) {
	repo := os.Getenv("OWT_STATE_HELPER_MIGRATE")
	if repo == "" {
		t.Skip("helper process only")
	}
	if _, err := ForRepo(repo).Load(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// An owt killed (-9) at some moment of its migration leaves a state the
// next one migrates whole.
func TestAMigrationKilledIsFinishedByTheNextOwt(t *testing.T) {
	tempState(t)
	const n = 150
	for i, delay := range []time.Duration{0, 80 * time.Millisecond, 200 * time.Millisecond} {
		repo := fmt.Sprintf("/r/killed%d", i)
		s := ForRepo(repo)
		writeV1(t, s, n)
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMigrator$")
		cmd.Env = append(os.Environ(), "OWT_STATE_HELPER_MIGRATE="+repo)
		require.NoError(t, cmd.Start())
		time.Sleep(delay)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		if v, _, _ := s.readIndex(); v == 1 {
			t.Logf("killed at %s: version 1 still, %d record files written", delay, len(inodes(t, s)))
		}
		f, err := s.Load()
		require.NoError(t, err, "after a kill at %s", delay)
		require.Len(t, f.Records, n, "after a kill at %s", delay)
		requireV1Records(t, f, n)
		require.Len(t, inodes(t, s), n)
	}
}

// TestHelperRecordWriter is not a test: re-executed as a separate
// process, it adds a record, or bumps one's port many times.
func TestHelperRecordWriter(t *testing.T) {
	repo, name := os.Getenv("OWT_STATE_HELPER_REPO"), os.Getenv("OWT_STATE_HELPER_RECORD")
	if repo == "" || name == "" {
		t.Skip("helper process only")
	}
	s := ForRepo(repo)
	var err error
	if times, _ := strconv.Atoi(os.Getenv("OWT_STATE_HELPER_TIMES")); times > 0 {
		for i := 0; i < times && err == nil; i++ {
			err = s.UpdateRecordUnsynced(name, func(r *Record) error { r.Port++; return nil })
		}
	} else {
		err = s.Update(func(f *File) error {
			f.Records[name] = &Record{Name: name, Status: Starting}
			return nil
		})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Processes migrating one version 1 state at once, each adding a record
// or changing one, lose nothing: the first migrates, the others find it
// done.
func TestConcurrentMigratorsLoseNothing(t *testing.T) {
	tempState(t)
	const n, adders, bumps = 20, 8, 10
	repo := "/r/busy"
	s := ForRepo(repo)
	writeV1(t, s, n)
	var wg sync.WaitGroup
	errs := make(chan error, adders+n)
	run := func(env ...string) {
		defer wg.Done()
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRecordWriter$")
		cmd.Env = append(append(os.Environ(), "OWT_STATE_HELPER_REPO="+repo), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			errs <- fmt.Errorf("%v: %s", err, out)
		}
	}
	for i := 0; i < adders; i++ {
		wg.Add(1)
		go run(fmt.Sprintf("OWT_STATE_HELPER_RECORD=new%d", i))
	}
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go run(fmt.Sprintf("OWT_STATE_HELPER_RECORD=a%d", i), fmt.Sprintf("OWT_STATE_HELPER_TIMES=%d", bumps))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	f, err := s.Load()
	require.NoError(t, err)
	require.Len(t, f.Records, n+adders)
	for i := 0; i < n; i++ {
		want := 4000 + 10*i
		if i < 4 {
			want += bumps
		}
		require.Equal(t, want, f.Records[fmt.Sprintf("a%d", i)].Port, "a%d", i)
	}
}

// Writers of different agents' records, goroutines and processes, lose
// none of each other's changes, and one agent's held lock does not stop
// another's write.
func TestWritersOfDifferentAgentsDoNotContend(t *testing.T) {
	tempState(t)
	repo := "/r/hooks"
	s := ForRepo(repo)
	const agents, times = 6, 25
	require.NoError(t, s.Update(func(f *File) error {
		for i := 0; i < agents; i++ {
			n := fmt.Sprintf("g%d", i)
			f.Records[n] = &Record{Name: n}
			p := fmt.Sprintf("p%d", i)
			f.Records[p] = &Record{Name: p}
		}
		return nil
	}))
	var wg sync.WaitGroup
	errs := make(chan error, 2*agents)
	for i := 0; i < agents; i++ {
		wg.Add(2)
		go func(n string) {
			defer wg.Done()
			for j := 0; j < times; j++ {
				if err := ForRepo(repo).UpdateRecordUnsynced(n, func(r *Record) error { r.Port++; return nil }); err != nil {
					errs <- err
					return
				}
			}
		}(fmt.Sprintf("g%d", i))
		go func(n string) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperRecordWriter$")
			cmd.Env = append(os.Environ(), "OWT_STATE_HELPER_REPO="+repo, "OWT_STATE_HELPER_RECORD="+n, fmt.Sprintf("OWT_STATE_HELPER_TIMES=%d", times))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("%v: %s", err, out)
			}
		}(fmt.Sprintf("p%d", i))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	f, err := s.Peek()
	require.NoError(t, err)
	for n, r := range f.Records {
		require.Equal(t, times, r.Port, n)
	}

	// g0's lock held (as its hook holds it): g1's hook writes meanwhile.
	held := flock.New(s.recordLock("g0"))
	require.NoError(t, held.Lock())
	done := make(chan error, 1)
	go func() { done <- s.UpdateRecordUnsynced("g1", func(r *Record) error { r.Status = Working; return nil }) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("a write of g1 waited for g0's lock")
	}
	require.NoError(t, held.Unlock())
}

// A change to one record, through either path, writes that record's file
// alone; a record taken out goes with its file and lock; a failed or
// empty change writes nothing.
func TestOnlyChangedRecordsAreWritten(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, s.Update(func(f *File) error {
		for _, n := range []string{"a", "b", "host/tester"} {
			f.Records[n] = &Record{Name: n, Status: Idle}
		}
		return nil
	}))
	require.FileExists(t, filepath.Join(s.RecordsDir(), "host%2Ftester.json"), "a worker's record, named so")
	before := inodes(t, s)
	require.NoError(t, s.Update(func(f *File) error { f.Records["a"].Status = Working; return nil }))
	require.NoError(t, s.UpdateRecordUnsynced("b", func(r *Record) error { r.Status = Working; return nil }))
	require.NoError(t, s.UpdateRecordUnsynced("b", func(r *Record) error { r.Status = Waiting; return ErrNoChange }))
	boom := errors.New("boom")
	require.ErrorIs(t, s.UpdateRecordUnsynced("b", func(r *Record) error { r.Status = Waiting; return boom }), boom)
	require.ErrorIs(t, s.Update(func(f *File) error { f.Records["host/tester"].Status = Waiting; return boom }), boom)
	var got *Record
	require.NoError(t, s.UpdateRecordUnsynced("ghost", func(r *Record) error { got = r; return nil }))
	require.Nil(t, got, "no such record: fn is given nil")
	require.NoFileExists(t, s.recordPath("ghost"))
	after := inodes(t, s)
	require.False(t, os.SameFile(before["a"], after["a"]))
	require.False(t, os.SameFile(before["b"], after["b"]))
	require.True(t, os.SameFile(before["host/tester"], after["host/tester"]), "not changed, not written")
	f, err := s.Peek()
	require.NoError(t, err)
	require.Equal(t, Working, f.Records["a"].Status)
	require.Equal(t, Working, f.Records["b"].Status)
	require.Equal(t, Idle, f.Records["host/tester"].Status)

	require.NoError(t, s.Update(func(f *File) error { delete(f.Records, "b"); return nil }))
	require.NoFileExists(t, s.recordPath("b"))
	require.NoFileExists(t, s.recordLock("b"))
	f, err = s.Peek()
	require.NoError(t, err)
	require.Len(t, f.Records, 2)
	require.Error(t, s.Update(func(f *File) error { f.Records["x"] = &Record{Name: "y"}; return nil }), "a record filed under another name")
}

// A corrupt record file met by a hook's change is set aside and rebuilt
// (that record alone), then changed.
func TestUpdateRecordOfACorruptRecordRebuildsIt(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	s.Warn = func(string) {}
	s.Rebuild = func(f *File) error {
		f.Records["a"] = &Record{Name: "a", Status: Idle, Recovered: true}
		f.Records["b"] = &Record{Name: "b", Status: Idle, Recovered: true}
		return nil
	}
	require.NoError(t, s.Update(func(f *File) error {
		f.Records["a"] = &Record{Name: "a", Status: Idle}
		f.Records["b"] = &Record{Name: "b", Status: Idle, Task: "b's"}
		return nil
	}))
	require.NoError(t, os.WriteFile(s.recordPath("a"), []byte(`{"name":"b"}`), 0o600))
	require.NoError(t, s.UpdateRecordUnsynced("a", func(r *Record) error { r.Status = Working; return nil }))
	f, err := s.Load()
	require.NoError(t, err)
	require.Equal(t, Working, f.Records["a"].Status)
	require.True(t, f.Records["a"].Recovered)
	require.Equal(t, "b's", f.Records["b"].Task)
}

// A corrupt index (the record files intact) is set aside and written
// again; the records are kept, and only what is missing is rebuilt.
func TestACorruptIndexKeepsTheRecords(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, s.Update(func(f *File) error { f.Records["a"] = &Record{Name: "a", Task: "a's"}; return nil }))
	require.NoError(t, os.WriteFile(s.Path, []byte("{garbage"), 0o600))
	require.Equal(t, []string{s.Path}, UnreadableStores())
	warned := ""
	s.Warn = func(m string) { warned = m }
	s.Rebuild = func(f *File) error {
		f.Records["a"] = &Record{Name: "a", Recovered: true}
		f.Records["z"] = &Record{Name: "z", Recovered: true}
		return nil
	}
	f, err := s.Load()
	require.NoError(t, err)
	require.Equal(t, "a's", f.Records["a"].Task)
	require.True(t, f.Records["z"].Recovered)
	require.Contains(t, warned, "corrupt")
	require.Empty(t, UnreadableStores())
}

func TestRecordFileNamesReadBack(t *testing.T) {
	for _, n := range []string{"a", "fix-login.2", "host/role", ".hidden", "x.lock", "sp ace", "ü"} {
		file := escapeName(n)
		require.NotContains(t, file, "/")
		require.NotEqual(t, '.', rune(file[0]))
		back, ok := unescapeName(file)
		require.True(t, ok, n)
		require.Equal(t, n, back)
	}
	require.NotEqual(t, strings.ToLower(escapeName("Fix")), strings.ToLower(escapeName("fix")), "two files where case is ignored")
	for _, bad := range []string{"", "%zz", "%2", "a%2Fb%"} {
		_, ok := unescapeName(bad)
		require.False(t, ok, bad)
	}
}

// The signature moves with every record written, through either path.
func TestSignatureMovesWithEveryRecordWrite(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, s.Update(func(f *File) error { f.Records["a"] = &Record{Name: "a", Status: Idle}; return nil }))
	before, err := Signature()
	require.NoError(t, err)
	require.Contains(t, before, "a.json")
	require.NoError(t, s.UpdateRecordUnsynced("a", func(r *Record) error { r.Status = Working; return nil }))
	after, err := Signature()
	require.NoError(t, err)
	require.NotEqual(t, before, after)
}

// SyncRecord syncs a record that is there, and says so of one that is not.
func TestSyncRecord(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, s.AddRecordUnsynced(func(map[string]Brief) (*Record, error) { return &Record{Name: "a"}, nil }))
	require.NoError(t, s.SyncRecord("a"))
	require.NoError(t, s.Sync())
	require.Error(t, s.SyncRecord("ghost"))
}

// UpdateRecord changes one record as UpdateRecordUnsynced does, synced.
func TestUpdateRecordIsSynced(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, s.Update(func(f *File) error { f.Records["w/r"] = &Record{Name: "w/r"}; return nil }))
	require.NoError(t, s.UpdateRecord("w/r", func(r *Record) error { r.Swarm = &SwarmRole{Edited: []string{"x"}}; return nil }))
	f, err := s.Peek()
	require.NoError(t, err)
	require.Equal(t, []string{"x"}, f.Records["w/r"].Swarm.Edited)
}

// PeekRecord reads one record, of either layout.
func TestPeekRecord(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	writeV1(t, s, 2)
	r, err := s.PeekRecord("a1")
	require.NoError(t, err)
	require.Equal(t, "task of a1", r.Task)
	_, err = s.Load()
	require.NoError(t, err)
	r, err = s.PeekRecord("a1")
	require.NoError(t, err)
	require.Equal(t, "task of a1", r.Task)
	r, err = s.PeekRecord("ghost")
	require.NoError(t, err)
	require.Nil(t, r)
	require.NoError(t, os.WriteFile(s.recordPath("a0"), []byte("{"), 0o600))
	_, err = s.PeekRecord("a0")
	require.ErrorIs(t, err, ErrCorrupt)
}

// A record's name as long as owt allows, every letter upper-case (a swarm
// worker: a 64-letter host, a 32-letter role), is a file name the file
// system takes, with room for the temp file and the corrupt file's
// suffix: a version 1 state with one migrates, and it reads back through
// Peek and the Reader.
func TestTheLongestNamesAreFilesThatReadBack(t *testing.T) {
	tempState(t)
	long := WorkerName(strings.Repeat("H", 64), strings.Repeat("R", 32))
	require.NoError(t, ValidateWorkerName(long))
	names := []string{long, strings.Repeat("Ab", 32), WorkerName(strings.Repeat("H", 64), strings.Repeat("S", 32))}
	s := ForRepo("/r")
	f := &File{Version: 1, Repo: s.Repo, Records: map[string]*Record{}}
	for _, n := range names {
		f.Records[n] = &Record{Name: n, Task: "task of " + n, Status: Idle}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(s.Path), 0o700))
	require.NoError(t, os.WriteFile(s.Path, data, 0o600))
	got, err := s.Load()
	require.NoError(t, err)
	for _, n := range names {
		require.Equal(t, "task of "+n, got.Records[n].Task)
		require.LessOrEqual(t, len(recordFile(n))+len(".corrupt-20060102T150405.000000000"), 255, n)
	}
	require.NoError(t, s.UpdateRecordUnsynced(long, func(r *Record) error { r.Status = Working; return nil }))
	peeked, err := s.Peek()
	require.NoError(t, err)
	require.Len(t, peeked.Records, len(names))
	require.Equal(t, Working, peeked.Records[long].Status)
	var rd Reader
	recs, _, skipped, err := rd.Read()
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, recs, len(names))
	rec, err := s.PeekRecord(long)
	require.NoError(t, err)
	require.Equal(t, Working, rec.Status)
	require.NoError(t, s.Update(func(f *File) error { delete(f.Records, long); return nil }))
	peeked, err = s.Peek()
	require.NoError(t, err)
	require.Len(t, peeked.Records, len(names)-1)
}

// A record file replaced by a folder, a dangling symlink or a symlink to a
// folder costs that one record, set aside and rebuilt, as a corrupt one
// does: not a record gone silently (Load, the Reader) or a repository that
// no longer reads.
func TestARecordFileThatIsNoFileIsRebuilt(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	s.Warn = func(string) {}
	names := []string{"d", "l", "ld", "ok"}
	s.Rebuild = func(f *File) error {
		for _, n := range names {
			f.Records[n] = &Record{Name: n, Status: Idle, Recovered: true}
		}
		return nil
	}
	require.NoError(t, s.Update(func(f *File) error {
		for _, n := range names {
			f.Records[n] = &Record{Name: n, Status: Idle, Task: n + "'s"}
		}
		return nil
	}))
	require.NoError(t, os.Remove(s.recordPath("d")))
	require.NoError(t, os.Mkdir(s.recordPath("d"), 0o700))
	require.NoError(t, os.Remove(s.recordPath("l")))
	require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "gone"), s.recordPath("l")))
	require.NoError(t, os.Remove(s.recordPath("ld")))
	require.NoError(t, os.Symlink(t.TempDir(), s.recordPath("ld")))

	_, err := s.Peek()
	require.ErrorIs(t, err, ErrCorrupt, "a peek says the repository's state is not whole")
	var rd Reader
	_, _, skipped, err := rd.Read()
	require.NoError(t, err)
	require.Len(t, skipped, 1, "the monitor does not show the repository short of a record")
	require.NoError(t, s.UpdateRecordUnsynced("l", func(r *Record) error {
		require.NotNil(t, r, "the hook's record is rebuilt, not taken for gone")
		r.Status = Working
		return nil
	}))
	f, err := s.Load()
	require.NoError(t, err)
	require.Len(t, f.Records, 4)
	require.Equal(t, "ok's", f.Records["ok"].Task)
	require.Equal(t, Working, f.Records["l"].Status)
	for _, n := range []string{"d", "l", "ld"} {
		require.True(t, f.Records[n].Recovered, n)
	}
	_, _, skipped, err = rd.Read()
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.NoError(t, s.UpdateRecordUnsynced("d", func(r *Record) error { r.Status = Working; return nil }))
}

// The index deleted while its record files remain: the repository is
// still one of Stores (owt list --all, owt uninstall) and the Reader's
// (the monitor, the status bar), found from its records, and the next
// write puts the index back.
func TestRecordsWithoutTheirIndexAreStillListed(t *testing.T) {
	tempState(t)
	s := ForRepo("/r/app")
	require.NoError(t, s.Update(func(f *File) error {
		f.Records["a"] = &Record{Name: "a", Repo: s.Repo, Task: "a's"}
		return nil
	}))
	require.NoError(t, os.Remove(s.Path))
	stores, err := Stores()
	require.NoError(t, err)
	require.Len(t, stores, 1)
	require.Equal(t, s.Repo, stores[0].Repo)
	require.Equal(t, s.Path, stores[0].Path)
	var rd Reader
	recs, _, skipped, err := rd.Read()
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, recs, 1)
	require.Equal(t, "a's", recs[0].Task)
	require.NoError(t, s.UpdateRecordUnsynced("a", func(r *Record) error { r.Status = Working; return nil }))
	require.FileExists(t, s.Path)
	stores, err = Stores()
	require.NoError(t, err)
	require.Len(t, stores, 1)
}

// A stray file in a records' folder, of a name owt never gives a record
// (README.json), hides no agent from the readers (owt list --all, the
// monitor, the status bar): it is no record, so none is missing; the
// next write sets it aside.
func TestAStrayFileHidesNoRecord(t *testing.T) {
	tempState(t)
	s := ForRepo("/r/app")
	require.NoError(t, s.Update(func(f *File) error {
		f.Records["a"] = &Record{Name: "a", Repo: s.Repo, Task: "a's"}
		return nil
	}))
	require.NoError(t, os.WriteFile(filepath.Join(s.RecordsDir(), "README.json"), []byte("{}"), 0o600))
	f, err := s.Peek()
	require.NoError(t, err)
	require.Len(t, f.Records, 1)
	var rd Reader
	recs, _, skipped, err := rd.Read()
	require.NoError(t, err)
	require.Empty(t, skipped)
	require.Len(t, recs, 1)
	s.Warn = func(string) {}
	s.Rebuild = func(*File) error { return nil }
	require.NoError(t, s.Update(func(f *File) error { require.Len(t, f.Records, 1); return ErrNoChange }))
	require.NoFileExists(t, filepath.Join(s.RecordsDir(), "README.json"))
}

// A listing of every repository (PeekReadable) keeps the records that
// read when one record file is corrupt, and says which did not; Peek, for
// a caller that must know the whole state, still fails. Nothing is
// recovered: that is owt's work in that repository.
func TestPeekReadableCostsACorruptRecordAloneNotItsRepository(t *testing.T) {
	tempState(t)
	s := ForRepo("/r")
	require.NoError(t, s.Update(func(f *File) error {
		f.Records["a"] = &Record{Name: "a", Status: Idle}
		f.Records["b"] = &Record{Name: "b", Status: Working}
		return nil
	}))
	require.NoError(t, os.WriteFile(s.recordPath("a"), []byte(`{garbage`), 0o600))

	f, unread, err := s.PeekReadable()
	require.NoError(t, err)
	require.Len(t, unread, 1)
	require.ErrorIs(t, unread[0], ErrCorrupt)
	require.Nil(t, f.Records["a"])
	require.Equal(t, Working, f.Records["b"].Status)

	_, err = s.Peek()
	require.ErrorIs(t, err, ErrCorrupt)
	data, err := os.ReadFile(s.recordPath("a"))
	require.NoError(t, err)
	require.Equal(t, "{garbage", string(data), "left for owt in that repository to recover")
}
