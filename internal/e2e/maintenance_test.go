package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSyncBringsBaseCommitsInAndRefusesDirtyOrConflicting(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	e.commitIn(repo, "shared.txt", "base\n", "shared")
	m := e.shell(repo, "m")
	rb := e.shell(repo, "rb")
	c := e.shell(repo, "c")
	e.commitIn(m.Path, "m.txt", "m\n", "m work")
	e.commitIn(rb.Path, "rb.txt", "rb\n", "rb work")
	e.commitIn(c.Path, "shared.txt", "agent\n", "c edits shared")
	e.commitIn(repo, "news.txt", "news\n", "main news")
	e.commitIn(repo, "shared.txt", "user\n", "main edits shared")

	out := e.MustOwt(repo, "sync", "m")
	require.Contains(t, out, "m: brought 2 commit(s) of main in (merge)")
	require.Equal(t, "Merge branch 'main' into feat/m", e.Git(m.Path, "log", "-1", "--format=%s"))
	require.FileExists(t, filepath.Join(m.Path, "news.txt"))
	require.Contains(t, e.MustOwt(repo, "sync", "m"), "m: up to date with main")

	e.MustOwt(repo, "sync", "rb", "--rebase")
	require.Equal(t, e.Git(repo, "rev-parse", "main"), e.Git(rb.Path, "rev-parse", "HEAD^"), "rebased onto main")

	// Conflict: nothing changes.
	before, tip := digest(t, c.Path), e.Git(c.Path, "rev-parse", "HEAD")
	r := e.Owt(repo, "sync", "c")
	requireOneLineError(t, r, "main conflicts with feat/c in shared.txt")
	require.Equal(t, before, digest(t, c.Path))
	require.Equal(t, tip, e.Git(c.Path, "rev-parse", "HEAD"))

	// Dirty: refused, never stashed.
	e.WriteFile(m.Path, "m.txt", "editing\n")
	e.commitIn(repo, "more.txt", "more\n", "more news")
	before = digest(t, m.Path)
	r = e.Owt(repo, "sync", "m")
	requireOneLineError(t, r, "m has uncommitted changes in 1 file(s): m.txt")
	require.Equal(t, before, digest(t, m.Path))

	// --all reports each and fails when any did.
	r = e.Owt(repo, "sync", "--all", "--json")
	require.Equal(t, 1, r.Code)
	var results []struct {
		Name, Error string
		UpToDate    bool `json:"up_to_date"`
		Brought     int
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &results), r.Stdout)
	require.Len(t, results, 3)
	byName := map[string]int{}
	for i, x := range results {
		byName[x.Name] = i
	}
	require.Contains(t, results[byName["m"]].Error, "uncommitted")
	require.Empty(t, results[byName["rb"]].Error)
	require.Equal(t, 1, results[byName["rb"]].Brought)
	require.Contains(t, results[byName["c"]].Error, "conflicts")
	e.requireUserFiles(repo, "sync")

	// --leave-conflicts leaves them to resolve in the worktree.
	r = e.Owt(repo, "sync", "c", "--leave-conflicts")
	requireOneLineError(t, r, "left in "+c.Path)
	data, _ := os.ReadFile(filepath.Join(c.Path, "shared.txt"))
	require.Contains(t, string(data), "<<<<<<<")
}

func TestCleanupRemovesMergedAndStaleKeepsWork(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	merged := e.shell(repo, "merged")
	e.commitIn(merged.Path, "m.txt", "m\n", "merged work")
	e.Git(repo, "merge", "-q", "--no-ff", "-m", "merge by hand", merged.Branch)
	squashed := e.shell(repo, "squashed")
	e.commitIn(squashed.Path, "s.txt", "s\n", "squashed work")
	e.Git(repo, "merge", "-q", "--squash", squashed.Branch)
	e.Git(repo, "commit", "-q", "-m", "squash by hand")
	dirty := e.shell(repo, "dirty")
	e.commitIn(dirty.Path, "d.txt", "d\n", "dirty work")
	e.Git(repo, "merge", "-q", "--no-ff", "-m", "merge dirty by hand", dirty.Branch)
	e.WriteFile(dirty.Path, "d.txt", "more, uncommitted\n")
	open := e.shell(repo, "open")
	e.commitIn(open.Path, "o.txt", "o\n", "unmerged work")
	fresh := e.shell(repo, "fresh")

	out := e.MustOwt(repo, "cleanup", "--dry-run")
	require.Contains(t, out, "would remove merged (merged into main)")
	require.Contains(t, out, "would remove squashed (its changes are already in main)")
	require.Contains(t, out, "dirty kept: merged into main, but 1 uncommitted file(s): d.txt")
	require.Contains(t, out, "open kept: not merged into main")
	require.Contains(t, out, "fresh kept: empty, no commits of its own")
	require.Len(t, e.List(repo), 5, "dry run removes nothing")

	out = e.MustOwt(repo, "cleanup", "--yes")
	require.Contains(t, out, "removed merged")
	require.Contains(t, out, "removed squashed")
	e.requireGone(repo, merged)
	e.requireGone(repo, squashed)
	e.requireKept(repo, dirty)
	e.requireKept(repo, open)
	e.requireKept(repo, fresh)
	e.requireUserFiles(repo, "cleanup")

	// Stale: untouched for the given days. "open" has a commit and "dirty"
	// a change: kept unless --force. "fresh" holds nothing: removed.
	r := e.Owt(repo, "cleanup", "--stale", "0", "--dry-run", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var items []struct {
		Name, Reason string
		Remove       bool
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &items), r.Stdout)
	verdict := map[string]string{}
	for _, it := range items {
		verdict[it.Name] = map[bool]string{true: "remove", false: "keep"}[it.Remove] + ": " + it.Reason
	}
	require.True(t, strings.HasPrefix(verdict["fresh"], "remove: untouched for"), verdict["fresh"])
	require.Contains(t, verdict["open"], "keep: kept: untouched for")
	require.Contains(t, verdict["open"], "1 commit(s) not in main (--force removes it anyway)")
	require.Contains(t, verdict["dirty"], "1 uncommitted file(s)")

	r = e.Owt(repo, "cleanup", "--stale", "30", "--dry-run")
	require.Equal(t, 0, r.Code)
	require.Contains(t, r.Stdout, "nothing to remove")

	e.MustOwt(repo, "cleanup", "--stale", "0", "--yes")
	e.requireGone(repo, fresh)
	e.requireKept(repo, open)
	e.MustOwt(repo, "cleanup", "--stale", "0", "--force", "--yes")
	e.requireGone(repo, open)
	e.requireGone(repo, dirty)
	e.requireUserFiles(repo, "cleanup --stale --force")
}

func TestDoctorAfterTmuxServerIsKilled(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	a := e.shell(repo, "a")
	b := e.shell(repo, "b")
	e.WriteFile(a.Path, "wip.txt", "work in progress\n")
	rep := doctorJSON(t, e.Owt(repo, "doctor", "--json").Stdout)
	require.Empty(t, rep.kinds(false))

	e.Tmux("kill-server")
	r := e.Owt(repo, "doctor", "--json")
	require.Equal(t, 1, r.Code)
	rep = doctorJSON(t, r.Stdout)
	require.ElementsMatch(t, []string{"worktree-without-session a", "worktree-without-session b"}, rep.kinds(false))
	require.Equal(t, "not running", rep.Monitor, "no tmux server, no monitor")

	r = e.Owt(repo, "doctor", "--fix", "--json")
	rep = doctorJSON(t, r.Stdout)
	require.ElementsMatch(t, []string{"worktree-without-session a", "worktree-without-session b"}, rep.kinds(true))
	require.Contains(t, e.Sessions(), a.Session)
	require.Contains(t, e.Sessions(), b.Session)
	require.Equal(t, e.PaneCwd(a.Session), a.Path)
	require.FileExists(t, filepath.Join(a.Path, "wip.txt"), "work untouched")
	e.requireUserFiles(repo, "doctor --fix")

	e.MustOwt(repo, "tmux", "init") // the new server's keys, as its tmux.conf binds them
	r = e.Owt(repo, "doctor", "--json")
	rep = doctorJSON(t, r.Stdout)
	require.Empty(t, rep.kinds(false), r.Stdout)
	require.Equal(t, rep.clean(), r.Code == 0, "exit 0 exactly when nothing is left: %s", r.Stdout)
}

func TestDoctorAfterWorktreeFolderDeletedByHand(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	gone := e.shell(repo, "gone") // no commits: its branch can go
	kept := e.shell(repo, "kept") // a commit main lacks: its branch stays
	e.commitIn(kept.Path, "k.txt", "k\n", "kept work")
	both := e.shell(repo, "both") // folder and session both gone
	require.Equal(t, "true", e.Git(repo, "config", "--get", "branch."+gone.Branch+".owt-created"), "owt new marks its branch")
	// The user's own branches, named the way owt names its own: never
	// reported, never deleted, merged or not.
	e.Git(repo, "branch", "fix/old-done")
	e.Git(repo, "branch", "feat/old-open", kept.Branch)
	// Branches owt made whose records are gone (a lost state file), one
	// merged, one holding work.
	e.Git(repo, "branch", "feat/orphan-done")
	e.Git(repo, "branch", "feat/orphan-open", kept.Branch)
	for _, b := range []string{"feat/orphan-done", "feat/orphan-open"} {
		e.Git(repo, "config", "branch."+b+".owt-created", "true")
	}
	for _, it := range []Item{gone, kept, both} {
		require.NoError(t, os.RemoveAll(it.Path))
	}
	e.Tmux("kill-session", "-t", both.Session)

	r := e.Owt(repo, "doctor", "--json")
	require.Equal(t, 1, r.Code)
	rep := doctorJSON(t, r.Stdout)
	require.ElementsMatch(t, []string{
		"session-without-worktree gone", "session-without-worktree kept", "record-without-either both",
		"branch-left-behind feat/orphan-done", "branch-left-behind feat/orphan-open",
	}, rep.kinds(false))

	r = e.Owt(repo, "doctor", "--fix", "--json")
	require.Equal(t, 1, r.Code, "branches with work are left: %s", r.Stdout)
	rep = doctorJSON(t, r.Stdout)
	require.ElementsMatch(t, []string{
		"session-without-worktree gone", "session-without-worktree kept", "record-without-either both",
		"branch-left-behind feat/orphan-done",
	}, rep.kinds(true))
	require.ElementsMatch(t, []string{"branch-left-behind feat/kept", "branch-left-behind feat/orphan-open"}, rep.kinds(false))
	requireOneLineError(t, r, "2 problem(s) left")

	require.NotContains(t, e.Sessions(), gone.Session)
	require.NotContains(t, e.Sessions(), kept.Session)
	require.Empty(t, e.List(repo))
	require.Empty(t, e.Git(repo, "branch", "--list", gone.Branch, both.Branch, "feat/orphan-done"))
	require.NotEmpty(t, e.Git(repo, "branch", "--list", kept.Branch), "a branch with work is never deleted")
	require.NotEmpty(t, e.Git(repo, "branch", "--list", "feat/orphan-open"), "a branch with work is never deleted")
	require.NotEmpty(t, e.Git(repo, "branch", "--list", "fix/old-done"), "the user's merged branch is theirs")
	require.NotEmpty(t, e.Git(repo, "branch", "--list", "feat/old-open"))
	require.NotContains(t, e.Git(repo, "worktree", "list"), "gone")
	e.requireUserFiles(repo, "doctor --fix")
}

func TestDoctorRemovesStaleGitLocks(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	w := e.shell(repo, "w")
	lock := filepath.Join(e.Git(w.Path, "rev-parse", "--absolute-git-dir"), "index.lock")
	fresh := filepath.Join(repo, ".git", "index.lock")
	e.WriteFile(filepath.Dir(lock), "index.lock", "")
	e.WriteFile(filepath.Dir(fresh), "index.lock", "")
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(lock, old, old))

	// A git process working in another repository holds none of this
	// one's locks: it must not stop the fix.
	e.longGit(e.NewRepo("other"))

	r0 := e.Owt(repo, "doctor", "--json")
	rep := doctorJSON(t, r0.Stdout)
	require.Equal(t, []string{"stale-lock " + lock}, rep.kinds(false), "a fresh lock may be in use: %s", r0.Stdout)
	rep = doctorJSON(t, e.Owt(repo, "doctor", "--fix", "--json").Stdout)
	require.Equal(t, []string{"stale-lock " + lock}, rep.kinds(true))
	require.NoFileExists(t, lock)
	require.FileExists(t, fresh)

	// One working in this repository's worktree may be about to use it.
	e.WriteFile(filepath.Dir(lock), "index.lock", "")
	require.NoError(t, os.Chtimes(lock, old, old))
	stop := e.longGit(w.Path)
	r := e.Owt(repo, "doctor", "--fix", "--json")
	rep = doctorJSON(t, r.Stdout)
	require.Equal(t, []string{"stale-lock " + lock}, rep.kinds(false), r.Stdout)
	require.Contains(t, rep.Findings[0].Action, "is working in this repository now")
	require.FileExists(t, lock)
	stop()
	rep = doctorJSON(t, e.Owt(repo, "doctor", "--fix", "--json").Stdout)
	require.Equal(t, []string{"stale-lock " + lock}, rep.kinds(true))
	require.NoFileExists(t, lock)
}

// longGit starts a git process working in dir that runs until stopped
// (git cat-file --batch waiting on its input), and returns the stop.
func (e *Env) longGit(dir string) func() {
	e.t.Helper()
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Env = e.Environ()
	in, err := cmd.StdinPipe()
	require.NoError(e.t, err)
	require.NoError(e.t, cmd.Start())
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			in.Close()
			_ = cmd.Wait()
		}
	}
	e.t.Cleanup(stop)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(e.t, err)
	e.Eventually(5*time.Second, "git runs in "+dir, func() bool {
		cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", cmd.Process.Pid))
		return err == nil && cwd == real
	})
	return stop
}

type doctorOut struct {
	Monitor string
	Checks  []struct {
		Name, Detail string
		OK           bool
	}
	Findings []struct {
		Kind, Name, Detail, Action string
		Fixed                      bool
	}
}

func doctorJSON(t *testing.T, out string) doctorOut {
	t.Helper()
	var d doctorOut
	require.NoError(t, json.Unmarshal([]byte(out), &d), out)
	return d
}

// clean reports whether no finding, the monitor's included, is left and
// every preflight check passed: doctor exits 0 exactly then.
func (d doctorOut) clean() bool {
	for _, c := range d.Checks {
		if !c.OK {
			return false
		}
	}
	for _, f := range d.Findings {
		if !f.Fixed {
			return false
		}
	}
	return true
}

// kinds lists "KIND NAME" of the findings fixed (or not), leaving out the
// monitor, which belongs to another part of owt.
func (d doctorOut) kinds(fixed bool) []string {
	out := []string{}
	for _, f := range d.Findings {
		if f.Fixed == fixed && f.Kind != "monitor-not-running" {
			out = append(out, f.Kind+" "+f.Name)
		}
	}
	return out
}

func TestCommitsOnADetachedHEADAreNeverLost(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	// det: no commit on its branch, two on a detached HEAD.
	det := e.shell(repo, "det")
	e.Git(det.Path, "checkout", "-q", "--detach")
	e.commitIn(det.Path, "d1.txt", "1\n", "detached 1")
	e.commitIn(det.Path, "d2.txt", "2\n", "detached 2")
	// merged: its branch is merged into main, then work went on detached.
	merged := e.shell(repo, "merged")
	e.commitIn(merged.Path, "m.txt", "m\n", "merged work")
	e.Git(repo, "merge", "-q", "--no-ff", "-m", "merge by hand", merged.Branch)
	e.Git(merged.Path, "checkout", "-q", "--detach")
	e.commitIn(merged.Path, "later.txt", "later\n", "after the merge, detached")

	r := e.Owt(repo, "delete", "det", "--yes")
	requireOneLineError(t, r, "2 commit(s) on a detached HEAD that no branch holds")
	e.requireKept(repo, det)

	out := e.MustOwt(repo, "cleanup", "--yes")
	require.Contains(t, out, "merged kept: merged into main, but 1 commit(s) on a detached HEAD that no branch holds")
	e.requireKept(repo, merged)
	r = e.Owt(repo, "cleanup", "--stale", "0", "--dry-run", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "2 commit(s) on a detached HEAD (--force removes it anyway)")

	for _, args := range [][]string{{"ship", "det", "--yes"}, {"merge", "merged", "--yes"}} {
		r = e.Owt(repo, args...)
		requireOneLineError(t, r, "is not on feat/")
	}
	e.requireKept(repo, det)
	e.requireKept(repo, merged)

	// Once a branch holds them, nothing is lost and the worktree can go.
	e.Git(det.Path, "branch", "keep-detached")
	e.MustOwt(repo, "delete", "det", "--yes")
	require.Equal(t, "detached 2", e.Git(repo, "log", "-1", "--format=%s", "keep-detached"))
}
