package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gofrs/flock"

	"github.com/owt-tmux/owt/internal/atomicfile"
)

// How a repository's state lies on disk (schema Version 2):
//
//	repos/NAME-HASH.json         the index: {"version": 2, "repo": "/the/repo"}
//	repos/NAME-HASH.json.lock    the repository's lock
//	repos/NAME-HASH/AGENT.json   one record, as Record encodes it
//	repos/NAME-HASH/AGENT.lock   that record's lock
//	repos/NAME-HASH.json.v1-backup  the version 1 file, kept by the migration
//
// AGENT is the record's name with every byte but lower-case letters,
// digits, '-', '_' and '.' (and a leading '.') written %XX: a swarm
// worker HOST/ROLE is HOST%2FROLE.json, and Fix is %46ix.json, so "Fix"
// and "fix" are two files on a file system that ignores case (macOS's).
// A name whose escaped form is longer than maxEscaped (a long upper-case
// swarm worker's: up to 97 bytes, 291 escaped, past the 255 a file name
// may have) is its first escaped bytes, '~' (which escaping never
// writes) and a hash of the whole name; its file is read by the name
// the record in it holds.
//
// Locks: a change to one record (UpdateRecordUnsynced, the hook's path)
// holds the repository's lock shared and the record's own lock
// exclusively, so hooks of different agents never wait for each other,
// and two writers of one record (its hook and the monitor) never lose
// each other's change. A change that may touch any record (Update, a new
// record) holds the repository's lock exclusively: no record's writer
// runs meanwhile, so it reads every record, runs its function, and
// writes only the records whose encoding changed (and removes those
// taken out, with their locks: nobody can hold or wait on one then).
// Readers (Peek, Load) take no lock: every file is replaced by rename,
// so a read sees a whole record, the old or the new.
//
// The index is the commit point of the migration from version 1: it is
// written, in place of the old file, only once a backup of that file and
// every record's file are written and synced. An owt killed before it
// leaves the version 1 file in force, and the next owt migrates again
// (files left by the killed one are replaced or removed); two owts
// migrate one after the other, under the repository's lock, and the
// second finds version 2. An older owt that meets the index refuses it
// as a newer schema instead of taking the repository for empty.

// backupSuffix names the version 1 file kept beside the index.
const backupSuffix = ".v1-backup"

// RecordsDir is the folder of the store's record files.
func (s *Store) RecordsDir() string { return strings.TrimSuffix(s.Path, ".json") }

// Files are every path of the store: the index, its lock, the records'
// folder and the migration's backup (for owt uninstall, which keeps or
// removes them together).
func (s *Store) Files() []string {
	return []string{s.Path, s.Path + ".lock", s.RecordsDir(), s.Path + backupSuffix}
}

// recordFile is the file name of the record called name.
func recordFile(name string) string { return fileBase(name) + ".json" }

// maxEscaped is the longest escaped name kept whole in a file name: with
// ".json", the temp file's "." and ".owt-N" and a corrupt file's
// ".corrupt-TIME" it stays within the 255 bytes of a file name.
const maxEscaped = 200

// hashMark joins a long name's escaped head to its hash; escapeName
// writes '~' as %7E, so no name kept whole has it.
const hashMark = "~"

// fileBase is the file name, without its suffix, of the record called
// name: escapeName's, or, past maxEscaped bytes, its head and a hash of
// the name.
func fileBase(name string) string {
	esc := escapeName(name)
	if len(esc) <= maxEscaped {
		return esc
	}
	head := esc[:maxEscaped-40]
	if i := strings.LastIndexByte(head, '%'); i >= 0 && i+3 > len(head) {
		head = head[:i] // no %XX cut in two
	}
	sum := sha256.Sum256([]byte(name))
	return head + hashMark + hex.EncodeToString(sum[:8])
}

// escapeName is name as a file name: lower-case letters, digits, '-',
// '_' and '.' as they are (a leading '.' escaped, so no record is hidden
// or taken for a temp file), every other byte %XX (upper-case letters
// too: two names that differ in case are two files even where the file
// system ignores case).
func escapeName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' && i > 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// unescapeName is the record name of a record file's name (without
// ".json"); false when it is not one escapeName makes.
func unescapeName(file string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(file); i++ {
		c := file[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(file) {
			return "", false
		}
		var v byte
		if _, err := fmt.Sscanf(file[i+1:i+3], "%02X", &v); err != nil {
			return "", false
		}
		b.WriteByte(v)
		i += 2
	}
	name := b.String()
	return name, name != "" && escapeName(name) == file
}

func (s *Store) recordPath(name string) string {
	return filepath.Join(s.RecordsDir(), recordFile(name))
}

func (s *Store) recordLock(name string) string {
	return filepath.Join(s.RecordsDir(), fileBase(name)+".lock")
}

// index is the index file's content (and the head of a version 1 file).
type index struct {
	Version int    `json:"version"`
	Repo    string `json:"repo"`
}

// encodeRecord is a record file's content.
func encodeRecord(r *Record) ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode record %s: %w", r.Name, err)
	}
	return append(data, '\n'), nil
}

// decodeRecord is the record called name from its file's content.
// decodeFile is the record in the record file called file (its name in
// the folder) and its name: the name the file's name escapes, or, of a
// long name's file, the name of the record in it, whose file it must be.
// name is "" when the file's name tells none.
func (s *Store) decodeFile(path, file string, data []byte) (name string, rec *Record, err error) {
	base := strings.TrimSuffix(file, ".json")
	if !strings.Contains(base, hashMark) {
		name, ok := unescapeName(base)
		if !ok {
			return "", nil, fmt.Errorf("%w: %s: not a record's file name", ErrCorrupt, path)
		}
		rec, err := s.decodeRecord(path, data, name)
		return name, rec, err
	}
	rec = &Record{}
	if err := json.Unmarshal(data, rec); err != nil {
		return "", nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if rec.Name == "" || recordFile(rec.Name) != file {
		return "", nil, fmt.Errorf("%w: %s: the record of %q is not in its file", ErrCorrupt, path, rec.Name)
	}
	return rec.Name, rec, nil
}

func (s *Store) decodeRecord(path string, data []byte, name string) (*Record, error) {
	rec := &Record{}
	if err := json.Unmarshal(data, rec); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, path, err)
	}
	if rec.Name != name {
		return nil, fmt.Errorf("%w: %s: the record of %q is in the file of %q", ErrCorrupt, path, rec.Name, name)
	}
	return rec, nil
}

func (s *Store) empty() *File {
	return &File{Version: Version, Repo: s.Repo, Records: map[string]*Record{}}
}

// checkVersion refuses a state file of a schema this owt does not know.
func (s *Store) checkVersion(v int) error {
	if v > Version {
		return fmt.Errorf("%w (schema %d; this owt knows %d): %s: upgrade owt", ErrNewer, v, Version, s.Path)
	}
	if v < 1 {
		return fmt.Errorf("%w: %s: unknown schema version %d", ErrCorrupt, s.Path, v)
	}
	return nil
}

// readIndex reads the index file: its version (0 when there is none),
// and its bytes, which are a whole version 1 state when version is 1.
func (s *Store) readIndex() (version int, data []byte, err error) {
	data, err = os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("read state %s: %w", s.Path, err)
	}
	var ix index
	if err := json.Unmarshal(data, &ix); err != nil {
		return 0, data, fmt.Errorf("%w: %s: %v", ErrCorrupt, s.Path, err)
	}
	if err := s.checkVersion(ix.Version); err != nil {
		return 0, data, err
	}
	return ix.Version, data, nil
}

// parseV1 reads a version 1 state file: every record in it.
func (s *Store) parseV1(data []byte) (*File, error) {
	f := s.empty()
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, s.Path, err)
	}
	if f.Records == nil {
		f.Records = map[string]*Record{}
	}
	for name, r := range f.Records {
		if r == nil || r.Name != name {
			return nil, fmt.Errorf("%w: %s: bad record %q", ErrCorrupt, s.Path, name)
		}
	}
	f.Version, f.Repo = Version, s.Repo
	return f, nil
}

// badRecord is a record file that does not read.
type badRecord struct {
	path string
	name string // "" when the file's name is not one owt makes
	err  error
}

// readRecords reads every record file: the records that read (and each
// one's bytes), and the files that do not. A file removed meanwhile is
// no record.
func (s *Store) readRecords() (f *File, raws map[string][]byte, bad []badRecord, err error) {
	f, raws = s.empty(), map[string][]byte{}
	entries, err := os.ReadDir(s.RecordsDir())
	if errors.Is(err, fs.ErrNotExist) {
		return f, raws, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read state %s: %w", s.RecordsDir(), err)
	}
	for _, e := range entries {
		file := e.Name()
		if !isRecordFile(file) {
			continue
		}
		p := filepath.Join(s.RecordsDir(), file)
		data, gone, err := readRecordFile(p)
		if gone {
			continue
		}
		if errors.Is(err, ErrCorrupt) {
			name, _ := unescapeName(strings.TrimSuffix(file, ".json"))
			bad = append(bad, badRecord{path: p, name: name, err: err})
			continue
		}
		if err != nil {
			return nil, nil, nil, err
		}
		name, rec, err := s.decodeFile(p, file, data)
		if err != nil {
			bad = append(bad, badRecord{path: p, name: name, err: err})
			continue
		}
		f.Records[name], raws[name] = rec, data
	}
	return f, raws, bad, nil
}

// strayFile says whether file, a record file's name (isRecordFile), is
// not one owt gives a record: no agent's record is in it.
func strayFile(file string) bool {
	base := strings.TrimSuffix(file, ".json")
	if strings.Contains(base, hashMark) {
		return false
	}
	_, ok := unescapeName(base)
	return !ok
}

// isRecordFile says whether file, a name in a records' folder, is a
// record's (a folder or a symlink of such a name too: a record that does
// not read, not one that is not there).
func isRecordFile(file string) bool {
	return !strings.HasPrefix(file, ".") && strings.HasSuffix(file, ".json")
}

// readRecordFile reads the record file at p; gone when there is none (it
// was removed meanwhile). A folder or a symlink that leads nowhere in its
// place is ErrCorrupt, as a file that does not parse is.
func readRecordFile(p string) (data []byte, gone bool, err error) {
	data, err = os.ReadFile(p)
	switch {
	case err == nil:
		return data, false, nil
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(p); lerr != nil {
			return nil, true, nil
		}
		return nil, false, fmt.Errorf("%w: %s: a symlink that leads nowhere", ErrCorrupt, p)
	case errors.Is(err, syscall.EISDIR):
		return nil, false, fmt.Errorf("%w: %s: a folder, not a record's file", ErrCorrupt, p)
	}
	return nil, false, fmt.Errorf("read state %s: %w", p, err)
}

// read reads the state as it is, without a lock: a version 1 file's
// records, else every record file's; v is the index's version (0: none).
// A corrupt index or record file is ErrCorrupt.
func (s *Store) read() (f *File, v int, err error) {
	f, v, unread, err := s.readAll()
	if err == nil && len(unread) > 0 {
		return nil, v, unread[0]
	}
	return f, v, err
}

// readAll is read with the records that read kept apart from what kept
// the others from reading (a record file that is not one owt makes is
// no record, and no fault).
func (s *Store) readAll() (f *File, v int, unread []error, err error) {
	v, data, err := s.readIndex()
	if err != nil {
		return nil, 0, nil, err
	}
	if v == 1 {
		f, err := s.parseV1(data)
		return f, v, nil, err
	}
	f, _, bad, err := s.readRecords()
	if err != nil {
		return nil, v, nil, err
	}
	for _, b := range bad {
		if !strayFile(filepath.Base(b.path)) {
			unread = append(unread, b.err)
		}
	}
	return f, v, unread, nil
}

// Peek reads the state without locking and without ever recovering it:
// what owt uses to read other repositories' files (the status bar, port
// blocks), which it has no business rewriting.
func (s *Store) Peek() (*File, error) {
	f, _, err := s.read()
	return f, err
}

// PeekReadable is Peek for a listing of every repository: the records
// that read, and what kept the others from reading. A corrupt record file
// costs its one agent there, not its repository's every agent; owt run in
// that repository recovers it (Load).
func (s *Store) PeekReadable() (*File, []error, error) {
	f, _, unread, err := s.readAll()
	return f, unread, err
}

// PeekRecord is Peek of the one record called name (nil, no error, when
// there is none): its file alone is read.
func (s *Store) PeekRecord(name string) (*Record, error) {
	v, data, err := s.readIndex()
	if err != nil {
		return nil, err
	}
	if v == 1 {
		f, err := s.parseV1(data)
		if err != nil {
			return nil, err
		}
		return f.Records[name], nil
	}
	p := s.recordPath(name)
	data, gone, err := readRecordFile(p)
	if gone || err != nil {
		return nil, err
	}
	return s.decodeRecord(p, data, name)
}

// Load reads the state without locking. A corrupt file is recovered under
// the lock first, when the store knows how to rebuild it, and a version 1
// file is migrated.
func (s *Store) Load() (*File, error) {
	f, v, err := s.read()
	if errors.Is(err, ErrCorrupt) && s.Rebuild != nil || err == nil && v == 1 {
		var out *File
		err = s.Update(func(g *File) error { out = g; return ErrNoChange })
		return out, err
	}
	return f, err
}

// locked runs fn holding the repository's lock, exclusively or shared.
func (s *Store) locked(shared bool, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("create the state folder %s: %w", filepath.Dir(s.Path), err)
	}
	lock := flock.New(s.Path + ".lock")
	if err := waitLock(lock, shared); err != nil {
		return fmt.Errorf("lock state %s: %w", s.Path, err)
	}
	defer func() { _ = lock.Unlock() }()
	return fn()
}

// Update runs fn on every record of the repository under the
// repository's lock, and writes (synced) the records whose encoding fn
// changed, removing those it took out. When fn returns an error nothing
// is written (ErrNoChange: and no error).
func (s *Store) Update(fn func(*File) error) error { return s.update(true, fn) }

// UpdateUnsynced is Update written without the fsync
// (atomicfile.WriteUnsynced): for changes owt can tell again from the
// agents' hooks and screens, tmux and git if a power loss takes a file
// back to its previous content — an agent's status and what comes with it
// (hooks, the monitor's readings: many a minute), the session a new
// record's create made (lost with the power anyway; 'owt doctor --fix'
// settles a create left unfinished). Every other change (a new record, a
// task, a teardown) is written with it.
func (s *Store) UpdateUnsynced(fn func(*File) error) error { return s.update(false, fn) }

func (s *Store) update(sync bool, fn func(*File) error) error {
	return s.locked(false, func() error {
		f, raws, indexed, err := s.loadLocked()
		if err != nil {
			return err
		}
		if err := fn(f); err != nil {
			if errors.Is(err, ErrNoChange) {
				return nil
			}
			return err
		}
		f.Version, f.Repo = Version, s.Repo
		if !indexed {
			// First the index, so the repository is listed (Stores)
			// once it has a record.
			if err := s.writeIndex(); err != nil {
				return err
			}
		}
		return s.writeChanged(f, raws, sync)
	})
}

// loadLocked reads every record under the exclusive lock, migrating a
// version 1 file and recovering corrupt files first; raws are the
// records' bytes as they are on disk now, and indexed says the index is
// there (else the first write makes it).
func (s *Store) loadLocked() (f *File, raws map[string][]byte, indexed bool, err error) {
	v, data, err := s.readIndex()
	var corrupt []badRecord
	switch {
	case errors.Is(err, ErrCorrupt) && s.Rebuild != nil:
		// Its records may be in the folder (a broken index) or not (a
		// broken version 1 file): the folder's are kept, and the rest
		// rebuilt.
		corrupt = append(corrupt, badRecord{path: s.Path, err: err})
	case err != nil:
		return nil, nil, false, err
	case v == 1:
		old, err := s.parseV1(data)
		if errors.Is(err, ErrCorrupt) && s.Rebuild != nil {
			corrupt = append(corrupt, badRecord{path: s.Path, err: err})
			break
		}
		if err != nil {
			return nil, nil, false, err
		}
		if err := s.migrate(data, old); err != nil {
			return nil, nil, false, err
		}
		v = Version
	}
	f, raws, bad, err := s.readRecords()
	if err != nil {
		return nil, nil, false, err
	}
	corrupt = append(corrupt, bad...)
	if len(corrupt) == 0 {
		return f, raws, v == Version, nil
	}
	if s.Rebuild == nil {
		return nil, nil, false, corrupt[0].err
	}
	if err := s.recover(f, raws, corrupt); err != nil {
		return nil, nil, false, err
	}
	// The rebuilt state stays even if the caller's change then fails.
	if err := s.writeIndex(); err != nil {
		return nil, nil, false, err
	}
	return f, raws, true, nil
}

// writeIndex writes the index file (synced).
func (s *Store) writeIndex() error {
	data, err := json.MarshalIndent(index{Version: Version, Repo: s.Repo}, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state index %s: %w", s.Path, err)
	}
	if err := atomicfile.Write(s.Path, append(data, '\n')); err != nil {
		return fmt.Errorf("save state %s: %w", s.Path, err)
	}
	return nil
}

// writeRecord replaces the record's file with data.
func (s *Store) writeRecord(name string, data []byte, sync bool) error {
	write := atomicfile.Write
	if !sync {
		write = atomicfile.WriteUnsynced
	}
	if err := write(s.recordPath(name), data); err != nil {
		return fmt.Errorf("save the record of %s: %w", name, err)
	}
	return nil
}

// writeChanged writes the records of f whose encoding is not raws' and
// removes the files of records raws has and f has not. Called with the
// exclusive lock held.
func (s *Store) writeChanged(f *File, raws map[string][]byte, sync bool) error {
	for name, r := range f.Records {
		if r == nil || r.Name != name {
			return fmt.Errorf("save state %s: the record filed as %q is not one of that name", s.Path, name)
		}
	}
	if err := os.MkdirAll(s.RecordsDir(), 0o700); err != nil {
		return fmt.Errorf("create the state folder %s: %w", s.RecordsDir(), err)
	}
	touched := false
	for name, r := range f.Records {
		data, err := encodeRecord(r)
		if err != nil {
			return err
		}
		if old, ok := raws[name]; ok && bytes.Equal(old, data) {
			continue
		}
		if err := s.writeRecord(name, data, sync); err != nil {
			return err
		}
		raws[name], touched = data, true
	}
	for name := range raws {
		if _, ok := f.Records[name]; ok {
			continue
		}
		if err := os.Remove(s.recordPath(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the record of %s: %w", name, err)
		}
		// Nobody holds or waits on its lock: they hold the repository's
		// lock shared first.
		_ = os.Remove(s.recordLock(name))
		delete(raws, name)
		touched = true
	}
	if sync && touched {
		return syncDir(s.RecordsDir())
	}
	return nil
}

// syncDir makes the names in dir durable (the renames into it).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// migrate turns the version 1 file (data, read as old) into version 2,
// under the exclusive lock: its bytes kept in the backup beside it, each
// record written to its file, any other record file (left by an owt
// killed while migrating an older content) removed, all synced, and only
// then the index written in its place. An owt killed at any step leaves
// the version 1 file, which the next owt migrates again.
func (s *Store) migrate(data []byte, old *File) error {
	backup := s.Path + backupSuffix
	if kept, err := os.ReadFile(backup); err != nil || !bytes.Equal(kept, data) {
		if err == nil {
			// Another version 1 file's backup (an older owt wrote after a
			// migration): keep both.
			backup = fmt.Sprintf("%s.%d", backup, os.Getpid())
		}
		if err := atomicfile.Write(backup, data); err != nil {
			return fmt.Errorf("back up state %s before its migration: %w", s.Path, err)
		}
	}
	if err := os.MkdirAll(s.RecordsDir(), 0o700); err != nil {
		return fmt.Errorf("create the state folder %s: %w", s.RecordsDir(), err)
	}
	_, left, bad, err := s.readRecords()
	if err != nil {
		return err
	}
	for name, r := range old.Records {
		enc, err := encodeRecord(r)
		if err != nil {
			return err
		}
		if err := s.writeRecord(name, enc, true); err != nil {
			return err
		}
	}
	for name := range left {
		if _, ok := old.Records[name]; !ok {
			if err := os.Remove(s.recordPath(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove the record of %s: %w", name, err)
			}
		}
	}
	for _, b := range bad {
		if b.name == "" || old.Records[b.name] == nil {
			if err := os.Remove(b.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", b.path, err)
			}
		}
	}
	if err := syncDir(s.RecordsDir()); err != nil {
		return err
	}
	if err := s.writeIndex(); err != nil {
		return err
	}
	return syncDir(filepath.Dir(s.Path))
}

// recover sets the corrupt files aside (for the user to read) and puts
// back, from Rebuild, the records they cost: those of the corrupt record
// files' names, or, when the index or a file of a name owt does not make
// was corrupt, every record Rebuild finds that f lacks. Each rebuilt
// record is written at once, so it stays even if the caller's change then
// fails. Called with the exclusive lock held.
func (s *Store) recover(f *File, raws map[string][]byte, corrupt []badRecord) error {
	warn := s.Warn
	if warn == nil {
		warn = func(m string) { fmt.Fprintln(os.Stderr, "owt: warning: "+m) }
	}
	lost, all := map[string]bool{}, false
	for _, b := range corrupt {
		aside, err := atomicfile.SetAside(b.path)
		if err != nil {
			return fmt.Errorf("move corrupt state aside: %w", err)
		}
		if b.name == "" {
			all = true
			warn(fmt.Sprintf("%v; moved it to %s and rebuilt what it lost from git worktrees and tmux sessions", b.err, aside))
		} else {
			lost[b.name] = true
			warn(fmt.Sprintf("%v; moved it to %s and rebuilt the record of %s from its git worktree and tmux session", b.err, aside, b.name))
		}
	}
	rebuilt := s.empty()
	if err := s.Rebuild(rebuilt); err != nil {
		return fmt.Errorf("rebuild state: %w", err)
	}
	for name, r := range rebuilt.Records {
		if _, ok := f.Records[name]; ok || r == nil || r.Name != name || !all && !lost[name] {
			continue
		}
		data, err := encodeRecord(r)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(s.RecordsDir(), 0o700); err != nil {
			return fmt.Errorf("create the state folder %s: %w", s.RecordsDir(), err)
		}
		if err := s.writeRecord(name, data, true); err != nil {
			return err
		}
		f.Records[name], raws[name] = r, data
	}
	return nil
}

// UpdateRecordUnsynced is UpdateUnsynced for a change to the one record
// called name: fn gets it as it is under its lock (nil when there is
// none), and its change is written unless fn returns an error
// (ErrNoChange: nothing to write). Only that record's file is read and
// written, under the repository's lock held shared and the record's own
// lock: its cost does not grow with the repository's records, and other
// agents' hooks do not wait for it. A state not yet migrated, or a
// corrupt record, goes the way of UpdateUnsynced (migrated, or set aside
// and rebuilt, first).
func (s *Store) UpdateRecordUnsynced(name string, fn func(*Record) error) error {
	return s.updateRecord(name, false, fn)
}

// UpdateRecord is UpdateRecordUnsynced written with the fsync, as Update
// writes: for a change to one record owt cannot tell again (a swarm
// worker's edited files, from its hooks).
func (s *Store) UpdateRecord(name string, fn func(*Record) error) error {
	return s.updateRecord(name, true, fn)
}

func (s *Store) updateRecord(name string, sync bool, fn func(*Record) error) error {
	slow := false
	err := s.locked(true, func() error {
		v, _, err := s.readIndex()
		_, dirErr := os.Stat(s.RecordsDir())
		switch {
		case err == nil && v == 0 && errors.Is(dirErr, fs.ErrNotExist):
			return noRecord(fn) // no state at all
		case err != nil || v != Version:
			slow = true // to migrate or recover under the exclusive lock
			return nil
		case errors.Is(dirErr, fs.ErrNotExist):
			return noRecord(fn)
		}
		lock := flock.New(s.recordLock(name))
		if err := waitLock(lock, false); err != nil {
			return fmt.Errorf("lock the record of %s: %w", name, err)
		}
		defer func() { _ = lock.Unlock() }()
		p := s.recordPath(name)
		data, gone, err := readRecordFile(p)
		if gone {
			return noRecord(fn)
		}
		if errors.Is(err, ErrCorrupt) {
			slow = true
			return nil
		}
		if err != nil {
			return err
		}
		rec, err := s.decodeRecord(p, data, name)
		if err != nil {
			slow = true
			return nil
		}
		if err := fn(rec); err != nil {
			if errors.Is(err, ErrNoChange) {
				return nil
			}
			return err
		}
		enc, err := encodeRecord(rec)
		if err != nil || bytes.Equal(enc, data) {
			return err
		}
		if rec.Name != name {
			return fmt.Errorf("save the record of %s: renamed to %q", name, rec.Name)
		}
		return s.writeRecord(name, enc, sync)
	})
	if err == nil && slow {
		return s.update(sync, func(f *File) error { return fn(f.Records[name]) })
	}
	return err
}

// noRecord runs fn for a record that is not there: nothing is written.
func noRecord(fn func(*Record) error) error {
	if err := fn(nil); err != nil && !errors.Is(err, ErrNoChange) {
		return err
	}
	return nil
}

// Sync makes the state as it is now durable (fsync of every record file,
// their folder and the index): for a change written with UpdateUnsynced
// that must outlive a power loss, synced while the caller does other
// work.
func (s *Store) Sync() error {
	entries, err := os.ReadDir(s.RecordsDir())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sync state %s: %w", s.RecordsDir(), err)
	}
	paths := []string{s.Path}
	for _, e := range entries {
		if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && strings.HasSuffix(e.Name(), ".json") {
			paths = append(paths, filepath.Join(s.RecordsDir(), e.Name()))
		}
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("sync state %s: %w", p, err)
		}
		err = f.Sync()
		_ = f.Close()
		if err != nil {
			return fmt.Errorf("sync state %s: %w", p, err)
		}
	}
	if len(entries) > 0 {
		return syncDir(s.RecordsDir())
	}
	return nil
}

// SyncRecord makes the record called name as it is now durable (fsync
// of its file, its folder and the index): Sync for one record, what owt
// new syncs while git and tmux work.
func (s *Store) SyncRecord(name string) error {
	for _, p := range []string{s.recordPath(name), s.RecordsDir(), s.Path} {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("sync state %s: %w", p, err)
		}
		err = f.Sync()
		_ = f.Close()
		if err != nil {
			return fmt.Errorf("sync state %s: %w", p, err)
		}
	}
	return nil
}

// CheckWritable proves the state can be written now, by writing its
// index again (lock, temp file, fsync, rename) and a file in its
// records' folder. A command about to do something it cannot undo (kill
// a session, remove a worktree) calls it first, so a record it could not
// update afterwards never outlives the things it describes.
func (s *Store) CheckWritable() error {
	err := s.locked(false, func() error {
		if _, _, _, err := s.loadLocked(); err != nil {
			return err
		}
		if err := s.writeIndex(); err != nil {
			return err
		}
		if err := os.MkdirAll(s.RecordsDir(), 0o700); err != nil {
			return fmt.Errorf("create the state folder %s: %w", s.RecordsDir(), err)
		}
		probe, err := os.CreateTemp(s.RecordsDir(), ".probe-*")
		if err != nil {
			return fmt.Errorf("write in %s: %w", s.RecordsDir(), err)
		}
		_ = probe.Close()
		return os.Remove(probe.Name())
	})
	if err != nil {
		return fmt.Errorf("owt cannot write its state: %w", err)
	}
	return nil
}

// Stores returns the store of every repository with a state file.
func Stores() ([]*Store, error) {
	stores, _, entries, err := readIndexes()
	if err != nil {
		return nil, err
	}
	for _, repo := range orphanRepos(entries) {
		stores = append(stores, ForRepo(repo))
	}
	return stores, nil
}

// readIndexes reads every repository index in the state dir: the stores
// of those that name their repository, and the paths of those that cannot
// be read or parsed. No state dir is no store and no error.
func readIndexes() (stores []*Store, unreadable []string, entries []fs.DirEntry, err error) {
	entries, err = os.ReadDir(reposDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list state: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		p := filepath.Join(reposDir(), name)
		data, err := os.ReadFile(p)
		if err != nil {
			unreadable = append(unreadable, p)
			continue
		}
		var head index
		if json.Unmarshal(data, &head) != nil || head.Repo == "" {
			unreadable = append(unreadable, p)
			continue
		}
		stores = append(stores, &Store{Repo: head.Repo, Path: p})
	}
	return stores, unreadable, entries, nil
}

// orphanRepos are the repositories of the records' folders among entries
// (of the state dir) whose index is not there (deleted by hand: the
// records are kept and the next write puts it back), each told by a
// record in it that names a repository whose folder it is.
func orphanRepos(entries []fs.DirEntry) []string {
	indexed := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			indexed[e.Name()] = true
		}
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || indexed[e.Name()+".json"] {
			continue
		}
		dir := filepath.Join(reposDir(), e.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, f := range files {
			if !isRecordFile(f.Name()) {
				continue
			}
			var rec Record
			data, err := os.ReadFile(filepath.Join(dir, f.Name()))
			if err != nil || json.Unmarshal(data, &rec) != nil || rec.Repo == "" {
				continue
			}
			if ForRepo(rec.Repo).RecordsDir() == dir {
				out = append(out, rec.Repo)
				break
			}
		}
	}
	return out
}

// UnreadableStores are the state files Stores skips: files in the state
// dir whose repository cannot be read from them (truncated, corrupt).
func UnreadableStores() []string {
	_, unreadable, _, _ := readIndexes()
	return unreadable
}

// Signature sums up every state file (the records' folders' and their
// files' names, sizes and modification times): it changes whenever a
// record was written, so a watcher knows when to read the state again.
// A write renames a file into its folder (the folder's time moves), but
// two within its timestamp's granularity show only in the files.
func Signature() (string, error) {
	dir := reposDir()
	fi, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", fi.ModTime().UnixNano())
	var walk func(dir string) error
	walk = func(dir string) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("list state: %w", err)
		}
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".lock") {
				continue // a lock says nothing of the records, and a stat each is half the cost
			}
			info, err := e.Info()
			if err != nil {
				continue // removed meanwhile
			}
			fmt.Fprintf(&b, "\x00%s %d %d", e.Name(), info.Size(), info.ModTime().UnixNano())
			if e.IsDir() {
				if err := walk(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(dir); err != nil {
		return "", err
	}
	return b.String(), nil
}
