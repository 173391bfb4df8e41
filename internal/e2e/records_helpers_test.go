package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

// stateIndexes are the index files of the repositories owt keeps state
// of under the test's XDG_STATE_HOME whose names match glob ("app-*.json",
// "*.json"): repos/NAME-HASH.json, beside the folder of its record files.
func (e *Env) stateIndexes(glob string) []string {
	e.t.Helper()
	files, err := filepath.Glob(filepath.Join(e.Var("XDG_STATE_HOME"), "owt", "repos", glob))
	require.NoError(e.t, err)
	return files
}

// stateStore is the store of the one repository whose index matches glob.
func (e *Env) stateStore(glob string) *state.Store {
	e.t.Helper()
	files := e.stateIndexes(glob)
	require.Len(e.t, files, 1, "one repository's state matches %s", glob)
	data, err := os.ReadFile(files[0])
	require.NoError(e.t, err)
	var head struct{ Repo string }
	require.NoError(e.t, json.Unmarshal(data, &head), "%s", data)
	return &state.Store{Repo: head.Repo, Path: files[0]}
}

// recordFiles are the record files of the store, one per agent.
func (e *Env) recordFiles(s *state.Store) []string {
	e.t.Helper()
	files, err := filepath.Glob(filepath.Join(s.RecordsDir(), "*.json"))
	require.NoError(e.t, err)
	return files
}

// recordFile is the file of the record called name in the store.
func (e *Env) recordFile(s *state.Store, name string) string {
	e.t.Helper()
	var file strings.Builder
	for _, c := range []byte(name) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			file.WriteByte(c)
		} else {
			fmt.Fprintf(&file, "%%%02X", c)
		}
	}
	p := filepath.Join(s.RecordsDir(), file.String()+".json")
	require.FileExists(e.t, p)
	return p
}

// corruptState writes garbage over every record file of the repository
// whose index matches glob: the whole state gone bad. It returns the
// files.
func (e *Env) corruptState(glob, garbage string) []string {
	e.t.Helper()
	files := e.recordFiles(e.stateStore(glob))
	require.NotEmpty(e.t, files)
	for _, f := range files {
		require.NoError(e.t, os.WriteFile(f, []byte(garbage), 0o600))
	}
	return files
}

// allRecords are every record file's content under the test's state, as
// JSON objects.
func (e *Env) allRecords() []map[string]any {
	e.t.Helper()
	var out []map[string]any
	for _, ix := range e.stateIndexes("*.json") {
		files, err := filepath.Glob(filepath.Join(strings.TrimSuffix(ix, ".json"), "*.json"))
		require.NoError(e.t, err)
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(e.t, err)
			var r map[string]any
			require.NoError(e.t, json.Unmarshal(data, &r), "%s: %s", f, data)
			out = append(out, r)
		}
	}
	return out
}

// editRecord changes the record called name of the repository whose
// index matches glob as a JSON object, under the locks owt's writers take
// (the repository's, then the record's), written as owt writes it (temp
// file, rename): a reader never sees half a file.
func (e *Env) editRecord(glob, name string, edit func(map[string]any)) {
	e.t.Helper()
	s := e.stateStore(glob)
	path := e.recordFile(s, name)
	for _, l := range []struct {
		path string
		how  int
	}{{s.Path + ".lock", syscall.LOCK_SH}, {strings.TrimSuffix(path, ".json") + ".lock", syscall.LOCK_EX}} {
		lock, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o600)
		require.NoError(e.t, err)
		require.NoError(e.t, syscall.Flock(int(lock.Fd()), l.how))
		defer func() { _ = lock.Close() }()
	}
	data, err := os.ReadFile(path)
	require.NoError(e.t, err)
	var rec map[string]any
	require.NoError(e.t, json.Unmarshal(data, &rec))
	edit(rec)
	data, err = json.Marshal(rec)
	require.NoError(e.t, err)
	tmp := filepath.Join(filepath.Dir(path), ".edit-test")
	require.NoError(e.t, os.WriteFile(tmp, data, 0o600))
	require.NoError(e.t, os.Rename(tmp, path))
}
