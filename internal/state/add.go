package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/owt-tmux/owt/internal/atomicfile"
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
		var f briefFile
		if json.Unmarshal(data, &f) != nil || f.Repo == "" {
			continue
		}
		for _, b := range f.Records {
			if b.Port > 0 {
				used = append(used, b.Port)
			}
		}
	}
	return used, nil
}

// AddRecordUnsynced adds the record fn returns (nil: nothing), fn given
// the records there are as briefs, all under the lock, written without
// the fsync (UpdateUnsynced; Sync makes it durable). fn must return a
// record of a name not there. Only the briefs are decoded and the new
// record encoded: in a file laid out as Write lays it out, the new
// record's JSON goes in among the others, by name, and the rest is
// written back byte for byte (the same document Update would write). A
// file that does not read as briefs goes the way of UpdateUnsynced (a
// corrupt one is set aside and rebuilt first).
func (s *Store) AddRecordUnsynced(fn func(map[string]Brief) (*Record, error)) error {
	doc := JSONFile[rawFile]{Path: s.Path, What: "state " + s.Path, Unsynced: true}
	err := doc.Locked(func() error {
		data, missing, err := s.readData()
		if err != nil {
			return err
		}
		briefs := map[string]Brief{}
		if !missing {
			if briefs, err = s.parseBriefs(data); err != nil {
				return err
			}
		}
		rec, err := fn(briefs)
		if err != nil || rec == nil {
			return err
		}
		if _, ok := briefs[rec.Name]; ok {
			return fmt.Errorf("add record %s to %s: there is one already", rec.Name, s.Path)
		}
		enc, err := json.MarshalIndent(rec, "    ", "  ")
		if err != nil {
			return fmt.Errorf("encode record %s: %w", rec.Name, err)
		}
		if out, ok := s.insertRecord(data, rec.Name, enc); ok {
			if err := atomicfile.WriteUnsynced(s.Path, out); err != nil {
				return fmt.Errorf("save state %s: %w", s.Path, err)
			}
			return nil
		}
		f, err := s.rawOf(data, missing)
		if err != nil {
			// Not ErrCorrupt (fn ran: it must not run again on a
			// rebuild), though data read as briefs a moment ago.
			return fmt.Errorf("read state %s: %v", s.Path, err)
		}
		f.Version, f.Repo = Version, s.Repo
		f.Records[rec.Name] = enc
		return doc.Write(f)
	})
	if errors.Is(err, ErrCorrupt) {
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
			f.Records[rec.Name] = rec
			return nil
		})
	}
	return err
}

// insertRecord is data, a state file laid out as Write lays it out with
// one record or more, with enc (a record's JSON indented at its depth)
// put in as the record called name, among the others by name as
// MarshalIndent orders them; ok is false for any other file. A record's
// key is the one kind of line that starts with four spaces and a quote
// (a raw newline cannot be inside a JSON string; a record's own lines
// are indented deeper).
func (s *Store) insertRecord(data []byte, name string, enc []byte) (out []byte, ok bool) {
	const trailer = "\n    }\n  }\n}\n"
	header, ok := s.laidOut(data, trailer)
	if !ok {
		return nil, false
	}
	key, err := json.Marshal(name)
	if err != nil {
		return nil, false
	}
	entry := append(append(append([]byte("\n    "), key...), ": "...), enc...)
	at := -1 // the key line the new record goes before; -1: after the last
	for i := len(header); ; {
		j := bytes.Index(data[i:], []byte("\n    \""))
		if j < 0 {
			break
		}
		i += j
		other, rest, found := readKey(data[i+len("\n    "):])
		if !found || !bytes.HasPrefix(rest, []byte(": {")) || !recordKeyAt(data, len(header), i) {
			return nil, false
		}
		if other > name {
			at = i
			break
		}
		i++
	}
	out = make([]byte, 0, len(data)+len(entry)+1)
	if at < 0 {
		end := len(data) - len(trailer) + len("\n    }")
		out = append(append(append(append(out, data[:end]...), ','), entry...), data[end:]...)
	} else {
		out = append(append(append(append(out, data[:at]...), entry...), ','), data[at:]...)
	}
	return out, true
}

// layoutHeader is how a file Write writes for this store begins, up to
// the brace that opens its records.
func (s *Store) layoutHeader() ([]byte, bool) {
	repo, err := json.Marshal(s.Repo)
	if err != nil {
		return nil, false
	}
	out := append([]byte("{\n  \"version\": "), strconv.Itoa(Version)...)
	out = append(append(append(out, ",\n  \"repo\": "...), repo...), ",\n  \"worktrees\": {"...)
	return out, true
}

// readKey reads the JSON string at the start of b: its value and what
// follows it.
func readKey(b []byte) (key string, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", nil, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			if json.Unmarshal(b[:i+1], &key) != nil {
				return "", nil, false
			}
			return key, b[i+1:], true
		}
	}
	return "", nil, false
}
