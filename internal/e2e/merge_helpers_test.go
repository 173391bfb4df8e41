package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// userFiles are ignored files a user keeps in their checkout: owt must
// never delete or change them, whatever it does.
var userFiles = map[string]string{
	".env":                   "SECRET=hunter2\n",
	".env.local":             "LOCAL=1\n",
	"app.log":                "a log line\n",
	"node_modules/dep/x.js":  "module.exports = 1\n",
	"build/cache/object.bin": "\x00\x01cache",
}

// withUserFiles writes userFiles into dir (the repo's .gitignore from
// NewRepo ignores .env*, *.log and node_modules/; build/ is added here via
// info/exclude, the way a user might).
func (e *Env) withUserFiles(dir string) {
	e.t.Helper()
	for rel, content := range userFiles {
		e.WriteFile(dir, rel, content)
	}
	exclude := e.Git(dir, "rev-parse", "--git-path", "info/exclude")
	if !filepath.IsAbs(exclude) {
		exclude = filepath.Join(dir, exclude)
	}
	require.NoError(e.t, os.MkdirAll(filepath.Dir(exclude), 0o755))
	f, err := os.OpenFile(exclude, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	require.NoError(e.t, err)
	_, err = f.WriteString("build/\n")
	require.NoError(e.t, err)
	require.NoError(e.t, f.Close())
	require.Empty(e.t, e.Git(dir, "status", "--porcelain"), "the user's files are ignored")
}

// requireUserFiles fails unless every user file is still there, unchanged.
func (e *Env) requireUserFiles(dir, after string) {
	e.t.Helper()
	for rel, content := range userFiles {
		got, err := os.ReadFile(filepath.Join(dir, rel))
		require.NoError(e.t, err, "%s: ignored file %s is gone", after, rel)
		require.Equal(e.t, content, string(got), "%s: ignored file %s changed", after, rel)
	}
}

// digest fingerprints a checkout byte for byte: every file of the working
// tree (ignored ones too), the index, and HEAD. It runs no git command, so
// taking it changes nothing.
func digest(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && rel == ".git" {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		switch {
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			sum = hex.EncodeToString(h[:])
		case info.Mode()&fs.ModeSymlink != 0:
			sum, _ = os.Readlink(p)
		}
		lines = append(lines, rel+" "+info.Mode().String()+" "+sum)
		return nil
	})
	require.NoError(t, err)
	gitDir := filepath.Join(dir, ".git")
	if b, err := os.ReadFile(gitDir); err == nil { // a linked worktree
		gitDir = strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:"))
	}
	for _, f := range []string{"index", "HEAD"} {
		b, _ := os.ReadFile(filepath.Join(gitDir, f))
		h := sha256.Sum256(b)
		lines = append(lines, ".git/"+f+" "+hex.EncodeToString(h[:]))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// shell makes a worktree with a shell (no agent) named name off base.
func (e *Env) shell(repo, name string, extra ...string) Item {
	e.t.Helper()
	args := append([]string{"new", "--json", "--no-agent", "--no-setup", "--name", name}, extra...)
	out := e.MustOwt(repo, append(args, "Work on "+name)...)
	var it Item
	require.NoError(e.t, json.Unmarshal([]byte(out), &it), out)
	e.Eventually(5*time.Second, name+" settles", func() bool { return e.Find(repo, name).Status == "idle" })
	return it
}

// commitIn writes rel in dir and commits it.
func (e *Env) commitIn(dir, rel, content, msg string) string {
	e.t.Helper()
	e.WriteFile(dir, rel, content)
	e.Git(dir, "add", "--", rel)
	e.Git(dir, "commit", "-q", "-m", msg)
	return e.Git(dir, "rev-parse", "HEAD")
}

// requireGone fails unless the worktree of it, its session, branch and
// record are all gone.
func (e *Env) requireGone(repo string, it Item) {
	e.t.Helper()
	require.NoDirExists(e.t, it.Path)
	require.NotContains(e.t, e.Sessions(), it.Session)
	require.Empty(e.t, e.Git(repo, "branch", "--list", it.Branch))
	for _, x := range e.List(repo) {
		require.NotEqual(e.t, it.Name, x.Name, "record still there")
	}
}

// requireKept fails unless the worktree, session, branch and record remain.
func (e *Env) requireKept(repo string, it Item) {
	e.t.Helper()
	require.DirExists(e.t, it.Path)
	require.Contains(e.t, e.Sessions(), it.Session)
	require.NotEmpty(e.t, e.Git(repo, "branch", "--list", it.Branch))
	e.Find(repo, it.Name)
}

// checkReport is owt check --json.
type checkReport struct {
	Name, Base, Branch string
	Ahead, Behind      int
	DirtyFiles         []string `json:"dirty_files"`
	Overlaps           []overlap
	Conflicts          []overlap
	Empty              bool
}

type overlap struct {
	With, Kind string
	Files      []string
}

func (e *Env) check(repo, name string) checkReport {
	e.t.Helper()
	out := e.MustOwt(repo, "check", name, "--json")
	var rep checkReport
	require.NoError(e.t, json.Unmarshal([]byte(out), &rep), out)
	return rep
}

// agentDoing starts a fake claude in worktree name with a scripted task
// and waits until it has run it and exited.
func (e *Env) agentDoing(repo, name, script string) Item {
	e.t.Helper()
	out := e.MustOwt(repo, "new", "--json", "--no-setup", "--tool", "claude", "--name", name, "--", script+"\n!exit 0")
	var it Item
	require.NoError(e.t, json.Unmarshal([]byte(out), &it), out)
	// Exited by its hook first; settled once its exit code is recorded
	// too (the monitor sees the pane end), so a snapshot taken after
	// this sees no write of owt's own.
	e.EventuallyWhy(20*time.Second, name+" exited, its exit code recorded", func() bool {
		it := e.Find(repo, name)
		return it.Status == "exited" && it.ExitCode != nil
	}, func() string {
		it := e.Find(repo, name)
		panes := e.Tmux("list-panes", "-a", "-F", "#{pane_id} #{session_name} pid=#{pane_pid} dead=#{pane_dead} st=#{pane_dead_status} cmd=#{pane_current_command} start=#{pane_start_command}")
		pid := e.Tmux("display-message", "-p", "-t", "="+it.Session+":", "#{pane_pid}")
		st, _ := os.ReadFile("/proc/" + pid + "/stat")
		hooks := e.Tmux("show-hooks", "-p", "-t", "="+it.Session+":")
		return fmt.Sprintf("record: %+v\npanes:\n%s\nproc: %s\nhooks: %s\nscreen:\n%s\nlog:\n%s", it, panes, st, hooks, e.Capture("="+it.Session+":"), e.OwtLog())
	})
	return it
}
