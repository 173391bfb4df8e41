package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Each agent's record is a file of its own, written by its own hooks; a
// state in the older layout (every record in the repository's one file)
// migrates on first use with its backup kept; a corrupt record file
// costs that agent's record alone, rebuilt from git and tmux.
func TestEachAgentsRecordIsItsOwnFile(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	const n = 5
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("r%d", i+1)
		e.MustOwt(repo, "new", "--json", "--no-setup", "--tool", "claude", "--name", names[i], "task of "+names[i])
	}
	for _, name := range names {
		e.WaitPrompts(name, 1)
		e.WaitStatus(repo, name, "idle", 60*time.Second) // its hooks wrote its record
	}

	// One file per agent, named for it and holding its record alone;
	// the index holds none.
	s := e.stateStore("app-*.json")
	index := func() map[string]any {
		data, err := os.ReadFile(s.Path)
		require.NoError(t, err)
		var ix map[string]any
		require.NoError(t, json.Unmarshal(data, &ix), "%s", data)
		return ix
	}
	require.Equal(t, float64(2), index()["version"])
	require.NotContains(t, index(), "worktrees")
	records := func() map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, f := range e.recordFiles(s) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			var r map[string]any
			require.NoError(t, json.Unmarshal(data, &r), "%s: %s", f, data)
			require.Equal(t, filepath.Base(f), r["name"].(string)+".json", "the file of %s holds its record", r["name"])
			out[r["name"].(string)] = r
		}
		return out
	}
	got := records()
	require.Len(t, got, n)
	for _, name := range names {
		require.Equal(t, "task of "+name, got[name]["task"])
		require.NotEmpty(t, got[name]["hook_events"], "%s's hooks wrote its own file", name)
	}

	// The older layout, as an older owt left it: every record in the
	// repository's one file. Made under the repository's lock, which
	// that owt took too.
	lock, err := os.OpenFile(s.Path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))
	v1, err := json.MarshalIndent(map[string]any{"version": 1, "repo": s.Repo, "worktrees": records()}, "", "  ")
	require.NoError(t, err)
	tmp := s.Path + ".test"
	require.NoError(t, os.WriteFile(tmp, v1, 0o600))
	require.NoError(t, os.Rename(tmp, s.Path))
	require.NoError(t, os.RemoveAll(s.RecordsDir()))
	require.NoError(t, lock.Close())

	items := e.List(repo)
	require.Len(t, items, n)
	for _, it := range items {
		require.Equal(t, "task of "+it.Name, it.Task)
		require.True(t, it.Live, it.Name)
	}
	e.Eventually(10*time.Second, "migrated", func() bool { return index()["version"] == float64(2) })
	backup, err := os.ReadFile(s.Path + ".v1-backup")
	require.NoError(t, err)
	require.Equal(t, string(v1), string(backup), "the older file kept beside the index")
	require.Len(t, records(), n)

	// A corrupt record file: r3's record alone is rebuilt (its task is
	// lost with it); the others are as they were. Whoever meets it first
	// (this list, or the monitor) sets it aside.
	r3 := e.recordFile(s, "r3")
	// The monitor held still first, so that nothing recovers the file
	// before a list of every repository, which recovers nothing, reads
	// it: that list shows the others (it hid the whole repository).
	monitor := e.FreezeMonitor()
	require.NoError(t, os.WriteFile(r3, []byte("{garbage"), 0o600))
	var all []Item
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(e.Root, "list", "--all", "--json")), &all))
	var listed []string
	for _, it := range all {
		listed = append(listed, it.Name)
	}
	require.Len(t, listed, n-1, "every agent but r3: %v", listed)
	require.NotContains(t, listed, "r3")
	aside, err := filepath.Glob(r3 + ".corrupt-*")
	require.NoError(t, err)
	require.Empty(t, aside, "a list of every repository recovers nothing")
	require.NoError(t, syscall.Kill(monitor, syscall.SIGCONT))
	r := e.Owt(repo, "list", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	aside, err = filepath.Glob(r3 + ".corrupt-*")
	require.NoError(t, err)
	require.Len(t, aside, 1, "set aside: %s", r.Stderr)
	items = e.List(repo)
	require.Len(t, items, n)
	for _, it := range items {
		if it.Name == "r3" {
			require.Empty(t, it.Task, "lost with its file")
			require.True(t, it.Live, "rebuilt from its live session")
			continue
		}
		require.Equal(t, "task of "+it.Name, it.Task)
	}

	// The agents' hooks still write their own records.
	for _, name := range []string{"r2", "r3"} {
		require.Equal(t, 0, e.Owt(repo, "send", name, "once more").Code)
		e.WaitPrompts(name, 2)
		e.WaitStatus(repo, name, "idle", 30*time.Second)
	}
	require.Len(t, records(), n)
}
