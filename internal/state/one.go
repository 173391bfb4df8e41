package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/owt-tmux/owt/internal/atomicfile"
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

// readData is the state file's bytes; missing when there is none yet.
func (s *Store) readData() (data []byte, missing bool, err error) {
	data, err = os.ReadFile(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read state %s: %w", s.Path, err)
	}
	return data, false, nil
}

// rawOf is data read as a rawFile, an empty one when the file is missing.
func (s *Store) rawOf(data []byte, missing bool) (*rawFile, error) {
	if missing {
		return &rawFile{Version: Version, Repo: s.Repo, Records: map[string]json.RawMessage{}}, nil
	}
	return s.parseRaw(data)
}

// parseRaw is data read as a rawFile.
func (s *Store) parseRaw(data []byte) (*rawFile, error) {
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

// recordSpan finds, in a state file laid out as Write lays it out (this
// schema's version and this store's repo first, the records by name below
// "worktrees", two spaces a level), where the record called name lies:
// data[start:end] is its JSON object. ok is false when the file is laid
// out otherwise (edited by hand, an older schema, cut short, a member
// after "worktrees"): the caller then decodes the whole file. A raw
// newline cannot be inside a JSON string, so a line that opens with four
// spaces and the quoted name, right after the records' brace or a record's
// closing line, is that record's key, and the first line of four spaces
// and "}" after it closes it (its own lines are indented deeper).
func (s *Store) recordSpan(data []byte, name string) (start, end int, ok bool) {
	header, ok := s.laidOut(data, "\n  }\n}\n")
	if !ok || !json.Valid(data) {
		return 0, 0, false
	}
	key, err := json.Marshal(name)
	if err != nil {
		return 0, 0, false
	}
	open := append(append([]byte("\n    "), key...), ": {"...)
	at := bytes.Index(data[len(header):], open)
	if at < 0 || bytes.Count(data[len(header):], open) != 1 || !recordKeyAt(data, len(header), len(header)+at) {
		return 0, 0, false
	}
	start = len(header) + at + len(open) - 1
	closing := bytes.Index(data[start:], []byte("\n    }"))
	if closing < 0 {
		return 0, 0, false
	}
	end = start + closing + len("\n    }")
	if !bytes.HasPrefix(data[end:], []byte(",\n    \"")) && !bytes.HasPrefix(data[end:], []byte("\n  }\n}\n")) {
		return 0, 0, false
	}
	return start, end, true
}

// laidOut reports whether data begins as Write begins this store's file
// and ends with trailer, with "worktrees" its last member (no line of a
// top-level key after it); header is that beginning, up to the brace
// that opens the records.
func (s *Store) laidOut(data []byte, trailer string) (header []byte, ok bool) {
	header, ok = s.layoutHeader()
	if !ok || !bytes.HasPrefix(data, header) || !bytes.HasSuffix(data, []byte(trailer)) ||
		bytes.Contains(data[len(header):], []byte("\n  \"")) {
		return nil, false
	}
	return header, true
}

// recordKeyAt reports whether the line at data[i:] ("\n    \"…") is a
// record's key: it follows the records' opening brace (at open) or a
// record's closing line and its comma.
func recordKeyAt(data []byte, open, i int) bool {
	return i == open || bytes.HasSuffix(data[:i], []byte("\n    },"))
}

// UpdateRecordUnsynced is UpdateUnsynced for a change to the one record
// called name: fn gets it as it is under the lock (nil when there is
// none), and its change is written unless fn returns an error
// (ErrNoChange: nothing to write). Only that record is decoded and
// encoded: in a file laid out as Write lays it out, its new JSON takes
// the place of its old one and the rest is written back byte for byte
// (the same document Update would write); any other file is read as a
// rawFile, and one that does not read so is left to UpdateUnsynced, which
// sets a corrupt one aside and rebuilds it.
func (s *Store) UpdateRecordUnsynced(name string, fn func(*Record) error) error {
	doc := JSONFile[rawFile]{Path: s.Path, What: "state " + s.Path, Unsynced: true}
	err := doc.Locked(func() error {
		data, missing, err := s.readData()
		if err != nil {
			return err
		}
		if start, end, ok := s.recordSpan(data, name); ok {
			return s.spliceRecord(data, start, end, name, fn)
		}
		f, err := s.rawOf(data, missing)
		if err != nil {
			return err
		}
		changed, err := s.changeRaw(f, name, fn)
		if err != nil || !changed {
			return err
		}
		return doc.Write(f)
	})
	if errors.Is(err, ErrCorrupt) {
		return s.UpdateUnsynced(func(f *File) error { return fn(f.Records[name]) })
	}
	return err
}

// decodeRecord is the record called name from its JSON.
func (s *Store) decodeRecord(raw []byte, name string) (*Record, error) {
	rec := &Record{}
	if err := json.Unmarshal(raw, rec); err != nil || rec.Name != name {
		return nil, fmt.Errorf("%w: %s: bad record %q", ErrCorrupt, s.Path, name)
	}
	return rec, nil
}

// spliceRecord changes the record at data[start:end] with fn and writes
// data with its new JSON in place, indented as at that depth.
func (s *Store) spliceRecord(data []byte, start, end int, name string, fn func(*Record) error) error {
	rec, err := s.decodeRecord(data[start:end], name)
	if err != nil {
		return err
	}
	if err := fn(rec); err != nil {
		if errors.Is(err, ErrNoChange) {
			return nil
		}
		return err
	}
	enc, err := json.MarshalIndent(rec, "    ", "  ")
	if err != nil {
		return fmt.Errorf("encode record %s: %w", name, err)
	}
	out := make([]byte, 0, len(data)-(end-start)+len(enc))
	out = append(append(append(out, data[:start]...), enc...), data[end:]...)
	if err := atomicfile.WriteUnsynced(s.Path, out); err != nil {
		return fmt.Errorf("save state %s: %w", s.Path, err)
	}
	return nil
}

// changeRaw runs fn on the record called name of f, and puts its new
// JSON back; changed is false when nothing is to be written.
func (s *Store) changeRaw(f *rawFile, name string, fn func(*Record) error) (changed bool, err error) {
	var rec *Record
	if raw, ok := f.Records[name]; ok {
		if rec, err = s.decodeRecord(raw, name); err != nil {
			return false, err
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
}
