package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A dependency install that fails is kept on the record: owt list and
// owt why say so, and owt.log has it, after the agent's screen covered
// the pane's line. The lockfile the install wrote (npm writes
// package-lock.json, failing or not) is owt's while unchanged: owt
// delete does not refuse for it. Edited, or beside work of the agent's,
// it is work again.
func TestFailedInstallIsRecordedAndItsLockfileIsNotWork(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "package.json", `{"name":"x"}`)
	e.WriteFile(repo, ".gitignore", "node_modules/\n")
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "node")
	// An npm that writes its lockfile and fails, as npm does offline.
	bin := filepath.Join(e.Root, "failing-npm")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "npm"),
		[]byte("#!/bin/sh\nmkdir -p node_modules/left-pad && echo x > node_modules/left-pad/index.js\n"+
			"echo '{\"lockfileVersion\": 3}' > package-lock.json\necho 'npm ERR! network' >&2\nexit 1\n"), 0o755))
	e.Set("PATH", bin+":"+e.Var("PATH"))
	e.Tmux("set-environment", "-g", "PATH", e.Var("PATH"))

	it := newJSON(t, e, repo, "--tool", "claude", "--name", "web", "Build it")
	e.WaitPrompts(it.Name, 1)
	var items []struct {
		Name        string
		SetupFailed []string `json:"setup_failed"`
	}
	defer func() {
		if t.Failed() {
			t.Logf("list: %s\nscreen: %s", e.MustOwt(repo, "list", "--json"), e.Tmux("capture-pane", "-p", "-J", "-S", "-200", "-t", it.Session))
		}
	}()
	e.Eventually(10*time.Second, "the failure on the record", func() bool {
		require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "list", "--json")), &items))
		return len(items) == 1 && len(items[0].SetupFailed) == 1
	})
	require.Equal(t, "node (npm): exit status 1", items[0].SetupFailed[0])
	require.Contains(t, e.MustOwt(repo, "list"), "setup failed: node (npm)")
	require.Contains(t, e.MustOwt(repo, "why", "web"), "setup failed before the agent started: node (npm): exit status 1")
	require.Contains(t, e.OwtLog(), "node (npm) failed: exit status 1")
	require.FileExists(t, filepath.Join(it.Path, "package-lock.json"))

	// The lockfile as npm left it is not work.
	require.NotContains(t, e.MustOwt(repo, "check", "web"), "package-lock.json")
	// Edited, it is.
	e.WriteFile(it.Path, "package-lock.json", `{"lockfileVersion": 3, "edited": true}`)
	requireOneLineError(t, e.Owt(repo, "delete", "web", "--yes"), "package-lock.json")
	require.FileExists(t, filepath.Join(it.Path, "package-lock.json"))
	// Put back as npm left it, beside a file of the agent's: that file
	// is work, the lockfile is not.
	e.WriteFile(it.Path, "package-lock.json", "{\"lockfileVersion\": 3}\n")
	e.WriteFile(it.Path, "notes.txt", "mine\n")
	r := e.Owt(repo, "delete", "web", "--yes")
	requireOneLineError(t, r, "notes.txt")
	require.NotContains(t, r.Stderr, "package-lock.json")
	// owt uninstall: the node_modules owt's install made is no work
	// (before, "ignored files owt did not put there: node_modules/…"
	// blocked it), and the uncommitted file is landed with owt ship,
	// not owt merge, which refuses uncommitted files.
	r = e.Owt(repo, "uninstall", "--dry-run")
	require.Equal(t, 1, r.Code, "%s%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stderr, "notes.txt")
	require.NotContains(t, r.Stderr, "node_modules")
	require.Contains(t, r.Stderr, "land it with 'owt ship web'")
	require.NoError(t, os.Remove(filepath.Join(it.Path, "notes.txt")))
	e.MustOwt(repo, "delete", "web", "--yes")
	_, err := os.Stat(it.Path)
	require.True(t, os.IsNotExist(err), "the worktree is gone")
}
