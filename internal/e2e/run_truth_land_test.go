package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A run says "done" and "landed" only for what happened: the task's own
// branch holds a change against the task's start, into holds what landed,
// and a clean checkout on into is moved as owt merge moves it.

// runTaskStates is each task's state and why, by id.
func (e *Env) runTaskStates(dir, name string) map[string]string {
	e.t.Helper()
	out := map[string]string{}
	for _, t := range e.runStatus(dir, name).Tasks {
		out[t.ID] = t.State
		out[t.ID+".why"] = t.Why
	}
	return out
}

// runWhy is the run's own why (a paused run says why it waits).
func (e *Env) runWhy(dir, name string) string {
	e.t.Helper()
	var v struct{ Why string }
	out := e.MustOwt(dir, "run", "status", name, "--json")
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v.Why
}

// taskStateShown is the STATE column of task id in owt run status.
func (e *Env) taskStateShown(dir, name, id string) string {
	e.t.Helper()
	for _, line := range strings.Split(e.MustOwt(dir, "run", "status", name), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == id {
			return f[1]
		}
	}
	e.t.Fatalf("no task %s in owt run status %s", id, name)
	return ""
}

// logRunOnFailure prints the run's log when the test failed, to say why.
func (e *Env) logRunOnFailure(dir, name string) {
	e.t.Cleanup(func() {
		if e.t.Failed() {
			e.t.Log(e.Owt(dir, "run", "log", name).Stdout)
		}
	})
}

// requireNoEvent fails when the run's log has any of the events.
func (e *Env) requireNoEvent(dir, name string, events ...string) {
	e.t.Helper()
	for _, ev := range e.runEvents(dir, name) {
		for _, bad := range events {
			require.NotEqual(e.t, bad, ev.Event, "%s %s: %s", ev.Task, ev.Event, ev.Detail)
		}
	}
}

func TestRunTaskWorkOffItsBranchIsNeverDoneNorLanded(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	done := "\\n!exec " + owtBin + " done --summary did-it"
	e.WriteFile(repo, "off.toml", `[run]
into = "feat/x"
max_concurrent = 2
tool = "claude"

[[task]]
id = "other"
task = "!exec git switch -q -c elsewhere\n!write a.txt\n!commit add a.txt`+done+`"

[[task]]
id = "loose"
task = "!exec git switch -q --detach\n!write b.txt\n!commit add b.txt`+done+`"

[[task]]
id = "child"
task = "`+taskScript("c.txt")+`"
depends_on = ["other"]
`)
	e.MustOwt(repo, "run", "start", "off.toml")
	e.logRunOnFailure(repo, "off")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "both tasks need the user", func() bool {
		s := e.runTaskStates(repo, "off")
		return s["other"] == "needs_you" && s["loose"] == "needs_you"
	})
	s := e.runTaskStates(repo, "off")
	require.Contains(t, s["other.why"], "elsewhere", "names the branch HEAD is on")
	require.Contains(t, s["loose.why"], "detached", "says HEAD is detached")
	require.Equal(t, "pending", s["child"], "no child starts from an empty parent branch")
	e.requireNoEvent(repo, "off", "done", "landed")
	require.Empty(t, e.Git(repo, "branch", "--list", "feat/x"), "nothing landed, no into made")

	// The user puts the work on the task's branch: it is done and lands,
	// and the child starts from it.
	other := e.Find(repo, "off-other")
	e.Git(other.Path, "switch", "-q", other.Branch)
	e.Git(other.Path, "merge", "-q", "--ff-only", "elsewhere")
	e.Eventually(60*time.Second, "other and its child landed", func() bool {
		s := e.runTaskStates(repo, "off")
		return s["other"] == "landed" && s["child"] == "landed"
	})
	require.Contains(t, e.Git(repo, "ls-tree", "--name-only", "feat/x"), "a.txt")
}

func TestRunTaskWithNoNetChangeIsNotDone(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	done := "\\n!exec " + owtBin + " done --summary did-it"
	e.WriteFile(repo, "net.toml", `[run]
into = "feat/x"
max_concurrent = 3
tool = "claude"

[[task]]
id = "hollow"
task = "!exec git commit -q --allow-empty -m nothing`+done+`"

[[task]]
id = "undone"
task = "!write tmp.txt\n!commit add tmp\n!exec git rm -q tmp.txt\n!commit remove tmp`+done+`"

[[task]]
id = "fine"
task = "!exec git commit -q --allow-empty -m nothing`+done+`"
allow_empty = true
`)
	e.MustOwt(repo, "run", "start", "net.toml")
	e.logRunOnFailure(repo, "net")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "the empty tasks need the user, the allowed one landed", func() bool {
		s := e.runTaskStates(repo, "net")
		return s["hollow"] == "needs_you" && s["undone"] == "needs_you" && s["fine"] == "landed"
	})
	s := e.runTaskStates(repo, "net")
	require.Contains(t, s["hollow.why"], "no change")
	require.Contains(t, s["undone.why"], "no change")
	for _, ev := range e.runEvents(repo, "net") {
		if ev.Task == "hollow" || ev.Task == "undone" {
			require.NotContains(t, []string{"done", "landed"}, ev.Event, "%s: %s", ev.Task, ev.Detail)
		}
	}
}

func TestRunPausesWhenIntoLosesWhatLanded(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "gone.toml", `[run]
into = "feat/x"
max_concurrent = 2
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"

[[task]]
id = "slow"
task = "!sleep 600s"
`)
	e.MustOwt(repo, "run", "start", "gone.toml")
	e.logRunOnFailure(repo, "gone")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(60*time.Second, "a landed", func() bool {
		return e.runTaskStates(repo, "gone")["a"] == "landed"
	})

	e.Git(repo, "branch", "-q", "-D", "feat/x")
	e.Eventually(30*time.Second, "the run pauses and a no longer says landed", func() bool {
		return e.runStatus(repo, "gone").State == "paused" && e.runTaskStates(repo, "gone")["a"] == "needs_you"
	})
	require.Contains(t, e.runWhy(repo, "gone"), "feat/x")
	require.Contains(t, e.runTaskStates(repo, "gone")["a.why"], "feat/x")
	require.Empty(t, e.Git(repo, "branch", "--list", "feat/x"), "into is not made again from base")
	require.Equal(t, "needs_you", e.taskStateShown(repo, "gone", "a"))

	// The user looked and resumes: a lands again, in a feat/x made anew.
	e.MustOwt(repo, "run", "resume", "gone")
	e.Eventually(60*time.Second, "a landed again", func() bool {
		return e.runTaskStates(repo, "gone")["a"] == "landed"
	})
	require.Contains(t, e.Git(repo, "ls-tree", "--name-only", "feat/x"), "a.txt")
	require.Equal(t, "active", e.runStatus(repo, "gone").State)
}

// A finished run whose into was rewritten: owt run status reads into
// itself and never says landed for what into does not hold.
func TestRunStatusNeverSaysLandedForWorkIntoLacks(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "one.toml", `[run]
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.MustOwt(repo, "run", "start", "one.toml")
	e.logRunOnFailure(repo, "one")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(60*time.Second, "run one finished", func() bool {
		return e.runStatus(repo, "one").State == "finished"
	})
	require.Equal(t, "landed", e.runTaskStates(repo, "one")["a"])

	e.Git(repo, "branch", "-q", "-f", "feat/x", "main")
	s := e.runTaskStates(repo, "one")
	require.NotEqual(t, "landed", s["a"])
	require.Contains(t, s["a.why"], "feat/x")
	require.Equal(t, "needs_you", e.taskStateShown(repo, "one", "a"))
}

// The seed's auto_ship lands in main, checked out and clean in the
// user's checkout: fast-forwarded there exactly as owt merge does.
func TestAutoShipLandsInACleanCheckoutOfTheBase(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	plans := t.TempDir()
	file := filepath.Join(plans, "tasks.toml")
	require.NoError(t, os.WriteFile(file, []byte(`[batch]
auto_ship = true

[[tasks]]
id = "schema"
description = "`+taskScript("schema.sql")+`"
`), 0o600))
	out := e.MustOwt(repo, "batch", file)
	e.logRunOnFailure(repo, "tasks")
	require.NotContains(t, out, "warning")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "run tasks finished", func() bool {
		return e.runStatus(repo, "tasks").State == "finished"
	})
	require.Equal(t, "landed", e.runTaskStates(repo, "tasks")["schema"])
	require.Contains(t, e.Git(repo, "ls-tree", "--name-only", "main"), "schema.sql")
	require.Equal(t, "main", strings.TrimSpace(e.Git(repo, "branch", "--show-current")))
	require.FileExists(t, filepath.Join(repo, "schema.sql"), "the clean checkout on main was fast-forwarded")
	require.Empty(t, strings.TrimSpace(e.Git(repo, "status", "--porcelain")))
}

// into checked out with uncommitted changes: run start and --dry-run warn;
// the run lands nothing there and the task needs the user, who is told why.
func TestRunIntoADirtyCheckoutWarnsAndWaits(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "README.md", "the user's edit\n")
	plans := t.TempDir()
	file := filepath.Join(plans, "dirty.toml")
	require.NoError(t, os.WriteFile(file, []byte(`[run]
into = "main"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`), 0o600))
	dry := e.MustOwt(repo, "run", "start", file, "--dry-run")
	require.Contains(t, dry, "warning: main is checked out in "+repo+" with uncommitted changes")
	out := e.MustOwt(repo, "run", "start", file)
	e.logRunOnFailure(repo, "dirty")
	require.Contains(t, out, "warning: main is checked out in "+repo+" with uncommitted changes")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "a needs the user", func() bool {
		return e.runTaskStates(repo, "dirty")["a"] == "needs_you"
	})
	require.Contains(t, e.runTaskStates(repo, "dirty")["a.why"], "uncommitted changes")
	require.NotContains(t, e.Git(repo, "ls-tree", "--name-only", "main"), "a.txt")
	require.Equal(t, "the user's edit\n", readFile(filepath.Join(repo, "README.md")))
}
