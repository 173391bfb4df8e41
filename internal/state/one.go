package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// rawFile is the state file with each record left as its JSON: what
// UpdateRecordUnsynced decodes, so a change to one record costs the
// decoding of that one, not of every record of the repository (a hook
// runs on every agent turn, and a repository can hold a hundred).
// Written, it is the same document as File's (fields in the same order,
// records by name, indented alike).
type rawFile struct {
	Version int                        `json:"version"`
	Repo    string                     `json:"repo"`
	Records map[string]json.RawMessage `json:"worktrees"`
}

// readRaw is read without decoding the records.
func (s *Store) readRaw() (*rawFile, error) {
	data, err := os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return &rawFile{Version: Version, Repo: s.Repo, Records: map[string]json.RawMessage{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read state %s: %w", s.Path, err)
	}
	f := &rawFile{}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, s.Path, err)
	}
	if err := s.checkVersion(f.Version); err != nil {
		return nil, err
	}
	if f.Records == nil {
		f.Records = map[string]json.RawMessage{}
	}
	return f, nil
}

// UpdateRecordUnsynced is UpdateUnsynced for a change to the one record
// called name: fn gets it as it is under the lock (nil when there is
// none), and its change is written unless fn returns an error
// (ErrNoChange: nothing to write). Only that record is decoded; a file
// that does not read so is left to UpdateUnsynced, which sets a corrupt
// one aside and rebuilds it.
func (s *Store) UpdateRecordUnsynced(name string, fn func(*Record) error) error {
	doc := JSONFile[rawFile]{Path: s.Path, What: "state " + s.Path, Load: s.readRaw, Unsynced: true}
	err := doc.Update(func(f *rawFile) (bool, error) {
		var rec *Record
		if raw, ok := f.Records[name]; ok {
			rec = &Record{}
			if err := json.Unmarshal(raw, rec); err != nil || rec.Name != name {
				return false, fmt.Errorf("%w: %s: bad record %q", ErrCorrupt, s.Path, name)
			}
		}
		if err := fn(rec); err != nil {
			if errors.Is(err, ErrNoChange) {
				return false, nil
			}
			return false, err
		}
		if rec == nil {
			return false, nil
		}
		data, err := json.Marshal(rec)
		if err != nil {
			return false, fmt.Errorf("encode record %s: %w", name, err)
		}
		f.Records[name] = data
		f.Version, f.Repo = Version, s.Repo
		return true, nil
	})
	if errors.Is(err, ErrCorrupt) {
		return s.UpdateUnsynced(func(f *File) error { return fn(f.Records[name]) })
	}
	return err
}
