package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Reader reads the records of every repository as Stores and Peek read
// them, keeping what it read: a later Read decodes again only the files
// that changed (their size, modification time or inode: every write
// renames a new file in). What the monitor reads each second, when most
// agents' records did not change. Records of files that did not change
// are the ones the last Read returned: callers do not change them.
//
// A records folder that did not change since a look well after its last
// change (dirSettle) is not listed again: every write renames a file in,
// which changes the folder. At 500 agents, listing and stat-ing every
// record file each second was a tenth of the monitor's work. A record
// file rewritten in place (by hand) is read once something else in its
// folder changes; owt list, which reads the files themselves, sees it
// at once.
type Reader struct {
	files map[string]*readFile
	dirs  map[string]*readDir
}

// readDir is a records folder as last listed.
type readDir struct {
	key   fileKey   // the folder's, when listed
	at    time.Time // when it was listed
	paths []string  // its record files
	f     *File
	err   error
	seen  bool
}

// dirSettle is how long before a listing a folder's last change must be
// for the listing to stand while the folder is unchanged: file times
// are coarse (a clock tick), so two renames in one tick share a time.
const dirSettle = time.Second

// Skipped is a repository whose state does not read (a corrupt record,
// a newer schema): left out of Read, as AllRecords leaves it out.
type Skipped struct {
	Repo, Path string
	Err        error
}

type fileKey struct {
	size, mtime int64
	ino         uint64
}

// readFile is one state file as last read: an index (head, and the whole
// state of a version 1 file) or a record.
type readFile struct {
	key  fileKey
	head index
	v1   *File
	rec  *Record
	err  error
	seen bool
}

func keyOf(fi fs.FileInfo) fileKey {
	k := fileKey{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		k.ino = uint64(st.Ino)
	}
	return k
}

// Read returns every record of every repository, by repository then as
// File.Sorted orders them; changed says whether any state file changed
// since the last Read (always, the first time). A missing state folder
// is fs.ErrNotExist.
func (rd *Reader) Read() (recs []*Record, changed bool, skipped []Skipped, err error) {
	if rd.files == nil {
		rd.files, rd.dirs, changed = map[string]*readFile{}, map[string]*readDir{}, true
	}
	for _, f := range rd.files {
		f.seen = false
	}
	for _, d := range rd.dirs {
		d.seen = false
	}
	entries, err := os.ReadDir(reposDir())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			rd.files = nil
			return nil, true, nil, err
		}
		return nil, false, nil, fmt.Errorf("list state: %w", err)
	}
	type repo struct {
		s *Store
		f *File
	}
	var repos []repo
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		p := filepath.Join(reposDir(), name)
		ix, ch := rd.file(p, e, func(data []byte, f *readFile) {
			if json.Unmarshal(data, &f.head) != nil {
				f.err = ErrCorrupt
			}
		})
		changed = changed || ch
		if ix == nil || ix.err != nil || ix.head.Repo == "" {
			continue // not a store (Stores skips it; UnreadableStores names it)
		}
		s := &Store{Repo: ix.head.Repo, Path: p}
		f, ch, err := rd.records(s, ix)
		changed = changed || ch
		if err != nil {
			skipped = append(skipped, Skipped{Repo: s.Repo, Path: p, Err: err})
			continue
		}
		repos = append(repos, repo{s, f})
	}
	for _, root := range orphanRepos(entries) {
		s := ForRepo(root)
		f, ch, err := rd.records(s, &readFile{head: index{Version: Version, Repo: root}})
		changed = changed || ch
		if err != nil {
			skipped = append(skipped, Skipped{Repo: s.Repo, Path: s.Path, Err: err})
			continue
		}
		repos = append(repos, repo{s, f})
	}
	for p, f := range rd.files {
		if !f.seen {
			delete(rd.files, p)
			changed = true
		}
	}
	for p, d := range rd.dirs {
		if !d.seen {
			delete(rd.dirs, p)
		}
	}
	sort.SliceStable(repos, func(i, j int) bool { return repos[i].s.Repo < repos[j].s.Repo })
	for _, r := range repos {
		recs = append(recs, r.f.Sorted()...)
	}
	return recs, changed, skipped, nil
}

// records are the store's records, from its version 1 file (ix) or its
// record files; changed when a record file changed.
func (rd *Reader) records(s *Store, ix *readFile) (f *File, changed bool, err error) {
	if err := s.checkVersion(ix.head.Version); err != nil {
		return nil, false, err
	}
	if ix.head.Version == 1 {
		if ix.v1 == nil && ix.err == nil {
			data, err := os.ReadFile(s.Path)
			if err != nil {
				return nil, false, fmt.Errorf("read state %s: %w", s.Path, err)
			}
			if ix.v1, err = s.parseV1(data); err != nil {
				return nil, false, err
			}
		}
		return ix.v1, false, nil
	}
	dir := s.RecordsDir()
	di, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return s.empty(), false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read state %s: %w", dir, err)
	}
	if d := rd.dirs[dir]; d != nil && d.key == keyOf(di) && di.ModTime().Before(d.at.Add(-dirSettle)) {
		d.seen = true
		for _, p := range d.paths {
			if rf := rd.files[p]; rf != nil {
				rf.seen = true
			}
		}
		return d.f, false, d.err
	}
	listed := time.Now()
	f, changed, paths, listErr, err := rd.list(s, dir)
	if listErr == nil { // a folder that did not list (EMFILE…) is listed again next time
		rd.dirs[dir] = &readDir{key: keyOf(di), at: listed, paths: paths, f: f, err: err, seen: true}
	}
	return f, changed, err
}

// list reads the record files in dir, decoding those that changed;
// listErr says the folder itself did not list.
func (rd *Reader) list(s *Store, dir string) (f *File, changed bool, paths []string, listErr, err error) {
	f = s.empty()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return f, false, nil, err, nil
	}
	if err != nil {
		err = fmt.Errorf("read state %s: %w", dir, err)
		return nil, false, nil, err, err
	}
	var bad error
	for _, e := range entries {
		file := e.Name()
		if !isRecordFile(file) || strayFile(file) {
			continue // a stray file is no record: a Load sets it aside
		}
		p := filepath.Join(dir, file)
		rf, ch := rd.file(p, e, func(data []byte, rf *readFile) {
			_, rf.rec, rf.err = s.decodeFile(p, file, data)
		})
		changed = changed || ch
		if rf != nil {
			paths = append(paths, p)
		}
		switch {
		case rf == nil: // removed meanwhile
		case rf.err != nil:
			if bad == nil {
				bad = rf.err
			}
		default:
			f.Records[rf.rec.Name] = rf.rec
		}
	}
	if bad != nil {
		return nil, changed, paths, nil, bad
	}
	return f, changed, paths, nil, nil
}

// file is the file at p as last read, read again (and decoded by decode)
// when it changed; nil when it is gone.
func (rd *Reader) file(p string, e fs.DirEntry, decode func([]byte, *readFile)) (*readFile, bool) {
	fi, err := e.Info()
	if err != nil {
		return nil, false
	}
	k := keyOf(fi)
	if f, ok := rd.files[p]; ok && f.key == k {
		f.seen = true
		return f, false
	}
	f := &readFile{key: k, seen: true}
	data, gone, err := readRecordFile(p)
	switch {
	case gone:
		delete(rd.files, p)
		return nil, true
	case err != nil:
		f.err = err
	default:
		decode(data, f)
	}
	rd.files[p] = f
	return f, true
}
