package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
)

// treeOf is every file, link and folder under the dirs, with its mode and
// content's hash (a link's target), skipping skip.
func treeOf(t *testing.T, skip map[string]bool, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		err := filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return nil
				}
				return err
			}
			if skip[p] {
				if de.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			fi, err := os.Lstat(p)
			if err != nil {
				return err
			}
			v := fi.Mode().String()
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				target, _ := os.Readlink(p)
				v += " -> " + target
			case fi.Mode().IsRegular():
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				sum := sha256.Sum256(data)
				v += " " + hex.EncodeToString(sum[:8])
			}
			out[p] = v
			return nil
		})
		require.NoError(t, err)
	}
	return out
}

func requireSameTree(t *testing.T, before, after map[string]string, what string) {
	t.Helper()
	var diff []string
	for p, v := range before {
		if after[p] != v {
			diff = append(diff, p+": "+v+" → "+after[p])
		}
	}
	for p, v := range after {
		if _, ok := before[p]; !ok {
			diff = append(diff, p+": new "+v)
		}
	}
	sort.Strings(diff)
	require.Empty(t, diff, "%s changed files", what)
}

// owt uninstall (issue 35, item 6): a dry run changes nothing; a worktree
// with uncommitted or unmerged work, or a running agent, is listed with
// how to land or delete it and blocks the uninstall, which then changes
// nothing; --keep-worktrees leaves those in place with owt's hooks taken
// out, and removes the rest: the programs beside the owt that runs (a copy
// installed into a PREFIX here, never the tests' own build) and the link
// to them, a clean stopped agent (worktree, branch, session), owt's state,
// caches and data, owt's lines in info/exclude (the user's stay byte for
// byte), owt's keys, options and monitor on the tmux server. The user's
// tmux.conf is named, never edited. It failed before: owt had no
// uninstall.
func TestUninstallKeepsWorkAndRemovesTheRest(t *testing.T) {
	e := NewEnv(t)
	// owt installed into a PREFIX, linked from ~/.local/bin as
	// @owt-link-bin does; a program of the user's beside the link.
	prefix, uninstall := installedOwt(e)
	localBin := filepath.Join(e.Home, ".local", "bin")
	require.NoError(t, os.MkdirAll(localBin, 0o755))
	require.NoError(t, os.Symlink(filepath.Join(prefix, "owt"), filepath.Join(localBin, "owt")))
	e.WriteFile(localBin, "mytool", "#!/bin/sh\n")
	tmuxConf := "set -g mouse on\nset -g @plugin 'owt-tmux/owt'\n"
	e.WriteFile(e.Home, ".tmux.conf", tmuxConf)
	// app: the user's own exclude lines and an untracked settings file
	// with their own hooks; agent a will hold uncommitted work.
	app := e.NewRepo("app")
	userExclude := "# mine\n*.log\n"
	e.WriteFile(app, ".git/info/exclude", userExclude)
	userSettings := "{\n  \"hooks\": {\n    \"Stop\": [ { \"hooks\": [ { \"type\": \"command\", \"command\": \"true\" } ] } ]\n  }\n}\n"
	e.WriteFile(app, ".claude/settings.local.json", userSettings)
	// lib: the settings file is tracked; agent b will hold a commit.
	lib := e.NewRepo("lib")
	e.WriteFile(lib, ".claude/settings.local.json", userSettings)
	e.Git(lib, "add", ".claude/settings.local.json")
	e.Git(lib, "commit", "-q", "-m", "settings")

	e.MustOwt(app, "tmux", "init")
	a := e.newAgent(app, "a", "claude")
	b := e.newAgent(lib, "b", "claude")
	require.NotEqual(t, userSettings, fileText(t, filepath.Join(b.Path, ".claude/settings.local.json")), "owt's hooks are in b's settings")
	require.Eventually(t, func() bool { return e.MonitorPID() > 0 }, 10*time.Second, 50*time.Millisecond, "the monitor runs")
	monitor := e.MonitorPID()
	e.WriteFile(a.Path, "work.txt", "precious\n")
	e.WriteFile(b.Path, "lib.txt", "lib\n")
	e.Git(b.Path, "add", "lib.txt")
	e.Git(b.Path, "commit", "-q", "-m", "lib")
	require.NotEmpty(t, e.binding("root", "M-s"))
	// The agents have finished their turns: nothing but owt uninstall
	// writes now.
	e.WaitStatus(app, "a", "idle", 30*time.Second)
	e.WaitStatus(lib, "b", "idle", 30*time.Second)
	// The uninstall lock's file (empty, in the temp folder) is not a change.
	skip := map[string]bool{filepath.Join(e.Root, "tmux"): true, e.Log: true,
		filepath.Join(e.Root, "tmp", "owt-uninstall-"+strconv.Itoa(os.Getuid())+".lock"): true}
	// Then the monitor's last writes for them are done: the tree holds
	// still for 3 s. (Waiting for its "finished its turn" notices was a
	// race: an agent whose turn ends before the monitor's first look at
	// it is told of by no notice.)
	var before map[string]string
	var still time.Time
	e.Eventually(60*time.Second, "owt's files hold still", func() bool {
		now := treeOf(t, skip, e.Root)
		if !maps.Equal(now, before) {
			before, still = now, time.Now()
			return false
		}
		return time.Since(still) >= 3*time.Second
	})

	// Blocked: both listed with how to land or delete them; nothing changes.
	for _, args := range [][]string{{"--dry-run"}, {}} {
		r := uninstall(args...)
		require.Equal(t, 1, r.Code, "%v\n%s%s", args, r.Stdout, r.Stderr)
		require.Contains(t, r.Stderr, "nothing was removed")
		require.Contains(t, r.Stderr, "work.txt")
		require.Contains(t, r.Stderr, "'owt ship a'", "a holds only an uncommitted file: owt merge would refuse it")
		require.Contains(t, r.Stderr, "'owt delete --force a'")
		require.Contains(t, r.Stderr, "'owt merge b'")
		require.Contains(t, r.Stderr, "1 commit(s)")
		require.Contains(t, r.Stderr, "its agent is running")
		require.Contains(t, r.Stderr, "--keep-worktrees")
		requireSameTree(t, before, treeOf(t, skip, e.Root), "a refused owt uninstall "+strings.Join(args, " "))
	}
	// A dry run that would go through says what it would remove, and
	// changes nothing.
	r := uninstall("--dry-run", "--keep-worktrees")
	require.Equal(t, 0, r.Code, r.Stderr)
	for _, want := range []string{"nothing changed", filepath.Join(prefix, "owt-wait"), filepath.Join(localBin, "owt"),
		filepath.Join(e.Root, "state", "owt"), filepath.Join(app, ".git", "info", "exclude"), "M-s",
		e.Home + "/.tmux.conf:2: set -g @plugin 'owt-tmux/owt'"} {
		require.Contains(t, r.Stdout, want)
	}
	requireSameTree(t, before, treeOf(t, skip, e.Root), "owt uninstall --dry-run")

	// a: its work given up and its agent stopped, it is deleted; b stays.
	require.NoError(t, os.Remove(filepath.Join(a.Path, "work.txt")))
	require.NoError(t, syscall.Kill(e.AgentPID("a"), syscall.SIGKILL))
	e.WaitStatus(app, "a", "exited", 15*time.Second)
	r = uninstall("--keep-worktrees")
	require.Equal(t, 0, r.Code, "%s%s", r.Stdout, r.Stderr)
	t.Logf("owt uninstall --keep-worktrees:\n%s", r.Stdout)

	for _, p := range []string{"owt", "owt-popup", "owt-mcp"} {
		require.NoFileExists(t, filepath.Join(prefix, p))
		require.FileExists(t, filepath.Join(filepath.Dir(owtBin), p), "the tests' own build stays")
	}
	require.NoFileExists(t, filepath.Join(prefix, "owt-wait"), "an older owt's program goes too")
	_, err := os.Lstat(filepath.Join(localBin, "owt"))
	require.True(t, os.IsNotExist(err), "the link is gone")
	require.FileExists(t, filepath.Join(localBin, "mytool"))
	for _, d := range []string{"cache", "data"} {
		require.NoDirExists(t, filepath.Join(e.Root, d, "owt"))
	}
	// Of the state only b's repository's record stays: an owt installed
	// again can still land or delete it.
	libState := stateFileOf(t, e, lib)
	records := strings.TrimSuffix(libState, ".json")
	want := []string{filepath.Join("repos", filepath.Base(libState))}
	for _, f := range filesUnder(t, records) {
		want = append(want, filepath.Join("repos", filepath.Base(records), f))
	}
	require.Contains(t, want, filepath.Join("repos", filepath.Base(records), b.Name+".json"), "b's record")
	require.ElementsMatch(t, want, filesUnder(t, filepath.Join(e.Root, "state", "owt")), "the index and the records' folder")
	require.NoDirExists(t, a.Path)
	require.NoDirExists(t, filepath.Dir(a.Path), "owt's worktrees folder, empty once a is deleted, goes too")
	require.Empty(t, e.Git(app, "branch", "--list", a.Branch))
	require.NotContains(t, e.Sessions(), a.Session)
	require.Equal(t, userExclude, fileText(t, filepath.Join(app, ".git", "info", "exclude")), "the user's exclude lines, byte for byte")
	require.Equal(t, userSettings, fileText(t, filepath.Join(app, ".claude", "settings.local.json")))
	// b: kept with its work; owt's hooks are out of its settings file,
	// which is HEAD's again, and git sees it.
	require.FileExists(t, filepath.Join(b.Path, "lib.txt"))
	require.Equal(t, userSettings, fileText(t, filepath.Join(b.Path, ".claude", "settings.local.json")))
	require.Empty(t, e.Git(b.Path, "status", "--porcelain"))
	require.NotContains(t, e.Git(b.Path, "ls-files", "-v", ".claude"), "S ")
	require.Contains(t, r.Stdout, "Kept:")
	// tmux: owt's keys, options and monitor are gone; tmux.conf untouched.
	require.Empty(t, e.binding("root", "M-s"))
	require.Empty(t, e.Tmux("show-options", "-gqv", "@owt-bound-keys"))
	require.Eventually(t, func() bool { return !fixture.Alive(monitor) }, 5*time.Second, 50*time.Millisecond)
	require.Empty(t, e.MonitorPIDs(), "no monitor runs for the server")
	require.Equal(t, tmuxConf, fileText(t, filepath.Join(e.Home, ".tmux.conf")))
}

func fileText(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// installedOwt copies the built programs into a PREFIX of the world (owt
// uninstall removes the programs beside the owt that runs: never the
// tests' own build) and returns it with a runner of its owt uninstall.
func installedOwt(e *Env) (string, func(args ...string) fixture.Result) {
	t := e.t
	prefix := filepath.Join(e.Root, "prefix", "bin")
	require.NoError(t, os.MkdirAll(prefix, 0o755))
	for _, p := range []string{"owt", "owt-popup", "owt-mcp"} {
		require.NoError(t, copyFile(filepath.Join(filepath.Dir(owtBin), p), filepath.Join(prefix, p), 0o755))
	}
	// What an older owt installed beside them, and this one no longer has.
	require.NoError(t, os.WriteFile(filepath.Join(prefix, "owt-wait"), []byte("#!/bin/sh\n"), 0o755))
	return prefix, func(args ...string) fixture.Result {
		t.Helper()
		cmd := exec.Command(filepath.Join(prefix, "owt"), append([]string{"uninstall"}, args...)...)
		cmd.Dir = e.Home
		cmd.Env = e.Environ()
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return fixture.Result{Stdout: stdout.String(), Stderr: stderr.String(), Code: code}
	}
}

// With no tmux server running (the machine rebooted, or tmux was quit),
// an agent whose session went with the server runs no more: it does not
// block owt uninstall, which deletes its clean worktree.
func TestUninstallWithoutATmuxServer(t *testing.T) {
	e := NewEnv(t)
	prefix, uninstall := installedOwt(e)
	repo := e.NewRepo("app")
	a := e.newAgent(repo, "a", "claude")
	e.WaitStatus(repo, "a", "idle", 30*time.Second)
	e.KillServerAndWait()
	r := uninstall("--dry-run")
	require.Equal(t, 0, r.Code, "%s%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "agent     a ")
	r = uninstall()
	require.Equal(t, 0, r.Code, "%s%s", r.Stdout, r.Stderr)
	require.NoDirExists(t, a.Path)
	require.Empty(t, e.Git(repo, "branch", "--list", a.Branch))
	require.NoFileExists(t, filepath.Join(prefix, "owt"))
	require.NoDirExists(t, filepath.Join(e.Root, "state", "owt"))
}

// stateFileOf is owt's state file of repo.
func stateFileOf(t *testing.T, e *Env, repo string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(e.Root, "state", "owt", "repos", filepath.Base(repo)+"*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1, "the state file of %s", repo)
	return files[0]
}

// filesUnder are the files under dir, relative to it.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !de.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	}))
	return out
}

// owt uninstall never loses what it cannot see and never says it removed
// what it did not (attack34 F2, F2b, F3, F4, F7; each failed before):
// a state file cut short stops it, changing nothing (it saw no agents and
// went through); an ignored file owt did not put in a worktree
// (notes.local) blocks like uncommitted work (the worktree was deleted);
// a worktree git refuses to remove (locked) stops it there with the
// repository's exclude lines, the agent's record and its hooks in place
// and exit 1 (it said "Removed:" first, then lost them); --keep-worktrees
// keeps the kept worktree's record, so owt list still shows it (it was
// gone); the memory's facts stay unless --purge-data (they were removed).
func TestUninstallStopsAtWhatItCannotRemoveOrSee(t *testing.T) {
	e := NewEnv(t)
	prefix, uninstall := installedOwt(e)
	app := e.NewRepo("app")
	e.WriteFile(app, ".gitignore", "notes.local\n")
	e.Git(app, "add", ".gitignore")
	e.Git(app, "commit", "-q", "-m", "ignore")
	lib := e.NewRepo("lib")
	x := e.newAgent(app, "x", "claude")
	y := e.newAgent(app, "y", "claude")
	e.newAgent(lib, "z", "claude")
	e.WaitStatus(app, "x", "idle", 30*time.Second)
	e.WaitStatus(app, "y", "idle", 30*time.Second)
	e.WaitStatus(lib, "z", "idle", 30*time.Second)
	e.MustOwt(app, "memory", "add", "Deploys need the VPN")
	e.WriteFile(x.Path, "notes.local", "mine\n")
	e.KillServerAndWait() // nothing runs: only work blocks
	require.Empty(t, e.Git(x.Path, "status", "--porcelain"), "notes.local is ignored")

	// A state file cut short: owt cannot tell what lib's agents are.
	libState := stateFileOf(t, e, lib)
	whole, err := os.ReadFile(libState)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(libState, whole[:40], 0o600))
	for _, args := range [][]string{{"--dry-run"}, {"--keep-worktrees"}} {
		r := uninstall(args...)
		require.Equal(t, 1, r.Code, "%v\n%s%s", args, r.Stdout, r.Stderr)
		require.Contains(t, r.Stderr, libState)
		require.Contains(t, r.Stderr, "'owt list'")
		require.Contains(t, r.Stderr, "nothing was removed")
		require.FileExists(t, filepath.Join(prefix, "owt"))
	}
	require.NoError(t, os.WriteFile(libState, whole, 0o600))

	// notes.local is work: x blocks.
	r := uninstall()
	require.Equal(t, 1, r.Code, "%s%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stderr, "notes.local")
	require.NotContains(t, r.Stderr, "  y ")
	require.FileExists(t, filepath.Join(x.Path, "notes.local"))

	// y's worktree cannot be removed: it stops there, before anything of
	// app's goes.
	exclude := filepath.Join(app, ".git", "info", "exclude")
	excludeBefore := fileText(t, exclude)
	require.Contains(t, excludeBefore, "# owt")
	ySettings := filepath.Join(y.Path, ".claude", "settings.local.json")
	require.Contains(t, fileText(t, ySettings), "owt")
	e.Git(app, "worktree", "lock", "--reason", "on a usb disk", y.Path)
	r = uninstall("--keep-worktrees")
	t.Logf("locked:\n%s%s", r.Stdout, r.Stderr)
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stdout, "FAILED  agent     y ")
	require.Contains(t, r.Stderr, "could not delete y")
	require.NotContains(t, r.Stdout, "removed exclude")
	require.NotContains(t, r.Stdout, "removed program")
	require.Equal(t, excludeBefore, fileText(t, exclude), "app's exclude lines stay")
	require.Contains(t, fileText(t, ySettings), "owt", "y's hooks stay")
	require.FileExists(t, filepath.Join(prefix, "owt"))
	require.Contains(t, e.MustOwt(app, "list"), "y", "y's record stays")

	// Unlocked, it goes through: x kept with its record, y deleted.
	e.Git(app, "worktree", "unlock", y.Path)
	r = uninstall("--keep-worktrees")
	t.Logf("kept:\n%s%s", r.Stdout, r.Stderr)
	require.Equal(t, 0, r.Code, "%s%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stdout, "removed agent     y ")
	require.Contains(t, r.Stdout, "git -C "+app+" merge "+x.Branch)
	require.NoDirExists(t, y.Path)
	require.FileExists(t, filepath.Join(x.Path, "notes.local"))
	require.NoFileExists(t, filepath.Join(prefix, "owt"))
	memory := filepath.Join(e.Root, "data", "owt", "memory")
	require.DirExists(t, memory, "the memory's facts are the user's")
	require.Contains(t, r.Stdout, memory)
	list := e.MustOwt(app, "list")
	require.Contains(t, list, "x", "an owt installed again still knows x")
	require.NotContains(t, list, "y ")
}

// A session owt made that no record holds (its state file removed) may
// run an agent: it stops owt uninstall, naming it (it went through).
func TestUninstallStopsAtAnUnrecordedSession(t *testing.T) {
	e := NewEnv(t)
	prefix, uninstall := installedOwt(e)
	app := e.NewRepo("app")
	a := e.newAgent(app, "a", "claude")
	e.WaitStatus(app, "a", "idle", 30*time.Second)
	// Removed under the repository's lock, as owt's own writers take it:
	// the monitor or a hook of a, writing a's status between the two
	// removals, would otherwise write its record and the index back.
	appState := stateFileOf(t, e, app)
	require.NoError(t, (&state.Store{Repo: app, Path: appState}).Update(func(*state.File) error {
		require.NoError(t, os.Remove(appState))
		require.NoError(t, os.RemoveAll(strings.TrimSuffix(appState, ".json")))
		return state.ErrNoChange
	}))
	r := uninstall()
	require.Equal(t, 1, r.Code, "%s%s", r.Stdout, r.Stderr)
	require.Contains(t, r.Stderr, "tmux session "+a.Session)
	require.Contains(t, r.Stderr, "nothing was removed")
	require.FileExists(t, filepath.Join(prefix, "owt"))
	require.Contains(t, e.Sessions(), a.Session)
}
