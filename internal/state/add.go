package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Brief is what reserving a new record needs of each record there is:
// its name, folder, in-place mark and port block. Decoding only these
// (owt new reads every repository's records for their ports) is a
// fraction of decoding whole records.
type Brief struct {
	Name    string `json:"name"`
	Path    string `json:"path"`
	InPlace bool   `json:"in_place,omitempty"`
	Port    int    `json:"port"`
}

// Record is the brief as a record with only those fields.
func (b Brief) Record() *Record {
	return &Record{Name: b.Name, Path: b.Path, InPlace: b.InPlace, Port: b.Port}
}

// briefFile is a state file with its records as briefs.
type briefFile struct {
	Version int              `json:"version"`
	Repo    string           `json:"repo"`
	Records map[string]Brief `json:"worktrees"`
}

// parseBriefs reads data as briefs, with the checks read makes (schema,
// each record filed under its own name).
func (s *Store) parseBriefs(data []byte) (map[string]Brief, error) {
	f := briefFile{}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, s.Path, err)
	}
	if err := s.checkVersion(f.Version); err != nil {
		return nil, err
	}
	for name, b := range f.Records {
		if b.Name != name {
			return nil, fmt.Errorf("%w: %s: bad record %q", ErrCorrupt, s.Path, name)
		}
	}
	if f.Records == nil {
		f.Records = map[string]Brief{}
	}
	return f.Records, nil
}

// PortsElsewhere is every port block held by a record of another
// repository than this store's (a broken file of another repository
// holds none: it must not block this one).
func (s *Store) PortsElsewhere() ([]int, error) {
	entries, err := os.ReadDir(reposDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list state: %w", err)
	}
	own := filepath.Clean(s.Path)
	var used []int
	for _, e := range entries {
		p := filepath.Join(reposDir(), e.Name())
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || p == own {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var head index
		if json.Unmarshal(data, &head) != nil || head.Repo == "" {
			continue
		}
		for _, b := range (&Store{Repo: head.Repo, Path: p}).peekBriefs(head.Version, data) {
			if b.Port > 0 {
				used = append(used, b.Port)
			}
		}
	}
	return used, nil
}

// peekBriefs are the store's records as briefs, read without a lock from
// the version 1 file (data) or the record files; what does not read is
// left out.
func (s *Store) peekBriefs(version int, data []byte) map[string]Brief {
	if version == 1 {
		briefs, _ := s.parseBriefs(data)
		return briefs
	}
	out := map[string]Brief{}
	entries, _ := os.ReadDir(s.RecordsDir())
	for _, e := range entries {
		file := e.Name()
		if e.IsDir() || strings.HasPrefix(file, ".") || !strings.HasSuffix(file, ".json") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.RecordsDir(), file))
		var b Brief
		if err != nil || json.Unmarshal(data, &b) != nil {
			continue
		}
		if name, ok := unescapeName(strings.TrimSuffix(file, ".json")); ok && b.Name == name {
			out[name] = b
		}
	}
	return out
}

// AddRecordUnsynced adds the record fn returns (nil: nothing), fn given
// the records there are as briefs, all under the repository's exclusive
// lock, written without the fsync (UpdateUnsynced; Sync makes it
// durable). fn must return a record of a name not there. Only the new
// record's file is written.
func (s *Store) AddRecordUnsynced(fn func(map[string]Brief) (*Record, error)) error {
	return s.UpdateUnsynced(func(f *File) error {
		briefs := make(map[string]Brief, len(f.Records))
		for name, r := range f.Records {
			briefs[name] = Brief{Name: r.Name, Path: r.Path, InPlace: r.InPlace, Port: r.Port}
		}
		rec, err := fn(briefs)
		if err != nil {
			return err
		}
		if rec == nil {
			return ErrNoChange
		}
		if _, ok := f.Records[rec.Name]; ok {
			return fmt.Errorf("add record %s to %s: there is one already", rec.Name, s.Path)
		}
		f.Records[rec.Name] = rec
		return nil
	})
}
