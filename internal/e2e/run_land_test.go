package e2e

import (
	"github.com/owt-tmux/owt/internal/e2e/fixture"
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

func TestRunTaskWorkOffItsBranchIsNeverDoneNorLanded(t *testing.T) {
	e := NewEnv(t, fixture.Long())
	repo := e.NewRepo("app")
	done := "\\n!exec " + owtBin + " done --summary did-it"
	e.startRun(repo, "off", `[run]
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
	e.startRun(repo, "net", `[run]
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
	e.startRun(repo, "gone", `[run]
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
	e.startRun(repo, "one", `[run]
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
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

// into rebased onto main and a landed file edited there afterwards: the
// landed commit is still in into (by patch-id), so nothing is lost.
func TestRunIntoRebasedThenEditedStillHoldsWhatLanded(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.startCommittedRun(repo, "r1", `[run]
into = "integ"
max_concurrent = 2
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"

[[task]]
id = "slow"
task = "!sleep 600s"
`)
	e.Eventually(60*time.Second, "a landed", func() bool {
		return e.runTaskStates(repo, "r1")["a"] == "landed"
	})

	e.commitOnMain(repo, "m.txt")
	e.Git(repo, "rebase", "-q", "main", "integ")
	e.WriteFile(repo, "a.txt", "A2\n")
	e.Git(repo, "commit", "-q", "-am", "improve a on integ")
	e.Git(repo, "checkout", "-q", "main")

	s := e.runTaskStates(repo, "r1")
	require.Equal(t, "landed", s["a"], s["a.why"])
	require.Equal(t, "active", e.runStatus(repo, "r1").State, e.runWhy(repo, "r1"))
	e.requireNoEvent(repo, "r1", "paused")

	// A landed commit dropped from into is still lost.
	e.Git(repo, "checkout", "-q", "integ")
	e.Git(repo, "reset", "-q", "--hard", "main")
	e.Git(repo, "checkout", "-q", "main")
	require.Equal(t, "needs_you", e.runTaskStates(repo, "r1")["a"])
}

func TestRunTaskThatOnlyMergedTheBaseIsNotDone(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	done := "\\n!exec " + owtBin + " done --summary "
	e.startCommittedRun(repo, "mm", `[run]
into = "feat/x"
max_concurrent = 2
tool = "claude"

[[task]]
id = "pull"
task = "!sleep 15s\n!exec git merge -q --no-edit main`+done+`merged-main"

[[task]]
id = "work"
task = "!write w.txt\n!commit add w.txt\n!sleep 15s\n!exec git merge -q --no-edit main`+done+`did-w"
`)
	e.Eventually(60*time.Second, "both tasks run", func() bool {
		s := e.runTaskStates(repo, "mm")
		return s["pull"] == "running" && s["work"] == "running"
	})
	e.commitOnMain(repo, "m.txt")

	e.Eventually(90*time.Second, "work landed, pull needs the user", func() bool {
		s := e.runTaskStates(repo, "mm")
		return s["work"] == "landed" && s["pull"] == "needs_you"
	})
	require.Contains(t, e.runTaskStates(repo, "mm")["pull.why"], "no commits")
	for _, ev := range e.runEvents(repo, "mm") {
		if ev.Task == "pull" {
			require.NotContains(t, []string{"done", "landed"}, ev.Event, "%s: %s", ev.Task, ev.Detail)
		}
	}
	require.Contains(t, e.Git(repo, "ls-tree", "--name-only", "feat/x"), "w.txt")
	require.NotEqual(t, "finished", e.runStatus(repo, "mm").State)
}

func TestRunWhoseIntoWasDeletedAfterItFinishedSaysSoEverywhereAndResumes(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.startCommittedRun(repo, "g", `[run]
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.Eventually(60*time.Second, "run g finished", func() bool {
		return e.runStatus(repo, "g").State == "finished"
	})

	e.Git(repo, "branch", "-q", "-D", "feat/x")
	// owt run list is asked first: it reads into itself.
	state, finished := e.runListed(repo, "g")
	require.Equal(t, "paused", state)
	require.Equal(t, 0, finished)
	require.Contains(t, e.MustOwt(repo, "run", "list"), "0/1")
	require.Equal(t, "paused", e.runStatus(repo, "g").State)
	require.Equal(t, "needs_you", e.runTaskStates(repo, "g")["a"])
	require.Contains(t, e.runWhy(repo, "g"), "feat/x")

	e.MustOwt(repo, "run", "resume", "g")
	e.Eventually(60*time.Second, "a landed again", func() bool {
		return e.runTaskStates(repo, "g")["a"] == "landed"
	})
	require.Contains(t, e.Git(repo, "ls-tree", "--name-only", "feat/x"), "a.txt")
	state, finished = e.runListed(repo, "g")
	require.Equal(t, "finished", state)
	require.Equal(t, 1, finished)
}

func TestRunRetryOfAFinishedRunsLostLandingLandsItAgain(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.startCommittedRun(repo, "r", `[run]
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.Eventually(60*time.Second, "run r finished", func() bool {
		return e.runStatus(repo, "r").State == "finished"
	})
	e.Git(repo, "branch", "-q", "-D", "feat/x")
	res := e.Owt(repo, "run", "retry", "r", "a")
	require.Equal(t, 0, res.Code, res.Stderr)
	e.Eventually(90*time.Second, "a landed again", func() bool {
		return e.runTaskStates(repo, "r")["a"] == "landed"
	})
	require.Contains(t, e.Git(repo, "ls-tree", "--name-only", "feat/x"), "a.txt")
}

func TestRunIntoRebasedOntoMainStillHoldsWhatLanded(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.startCommittedRun(repo, "rb", `[run]
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
	e.Eventually(60*time.Second, "a landed", func() bool {
		return e.runTaskStates(repo, "rb")["a"] == "landed"
	})

	e.commitOnMain(repo, "m.txt")
	e.Git(repo, "rebase", "-q", "main", "feat/x")
	e.Git(repo, "checkout", "-q", "main")

	require.Equal(t, "landed", e.runTaskStates(repo, "rb")["a"], "the rebased into holds a's work")
	require.Equal(t, "active", e.runStatus(repo, "rb").State)
	require.Equal(t, "active", func() string { s, _ := e.runListed(repo, "rb"); return s }())
	// Stopped, the run does not land a again (no second copy in into).
	e.MustOwt(repo, "run", "stop", "rb")
	log := e.Git(repo, "log", "--format=%s", "main..feat/x")
	require.Equal(t, 1, strings.Count(log, "add a.txt"), log)
	e.requireNoEvent(repo, "rb", "paused")
}

func TestRunRefusesToLandInABranchALiveAgentWorksOn(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--tool", "claude", "--name", "busy", "Refactor\n!sleep 600s")
	e.MustOwt(repo, "tmux", "init")
	e.WaitStatus(repo, "busy", "working", 60*time.Second)
	busy := e.Find(repo, "busy")
	plan := `[run]
into = "` + busy.Branch + `"
tool = "claude"

[[task]]
id = "z"
task = "` + taskScript("zz.txt") + `"
`
	e.WriteFile(repo, "bz.toml", plan)
	e.Git(repo, "add", "bz.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	dry := e.MustOwt(repo, "run", "start", "bz.toml", "--dry-run")
	out := e.MustOwt(repo, "run", "start", "bz.toml")
	e.logRunOnFailure(repo, "bz")

	e.Eventually(90*time.Second, "z landed or needs the user", func() bool {
		s := e.runTaskStates(repo, "bz")["z"]
		return s == "landed" || s == "needs_you"
	})
	require.Equal(t, "needs_you", e.runTaskStates(repo, "bz")["z"])
	require.Contains(t, e.runTaskStates(repo, "bz")["z.why"], "busy")
	require.NotContains(t, e.Git(repo, "ls-tree", "--name-only", busy.Branch), "zz.txt")
	require.NoFileExists(t, busy.Path+"/zz.txt")
	e.requireNoEvent(repo, "bz", "landed")
	require.Contains(t, dry, "warning: "+busy.Branch+" is checked out in "+busy.Path)
	require.Contains(t, out, "warning: "+busy.Branch+" is checked out in "+busy.Path)
}

// The monitor itself notices a finished run's into deleted: the bar
// shows the run waiting for the user, with no owt run command asked.
func TestStatusBarShowsAFinishedRunWhoseIntoWasDeleted(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.startCommittedRun(repo, "bar", `[run]
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	runs := func() string { return e.Tmux("show-options", "-gqv", "@owt-runs") }
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("bar %q; %s", runs(), e.OwtLog())
		}
	})
	e.Eventually(60*time.Second, "run bar finished", func() bool {
		return e.runStatus(repo, "bar").State == "finished"
	})
	e.Eventually(20*time.Second, "the finished run drops off the bar", func() bool { return runs() == "" })

	e.Git(repo, "branch", "-q", "-D", "feat/x")
	want := "⏸bar 0/1 #[fg=black,bg=yellow,bold] ▲1 #[default]"
	e.Eventually(30*time.Second, "the bar shows the run waiting for the user", func() bool { return runs() == want })
	require.Equal(t, "needs_you", e.runTaskStates(repo, "bar")["a"])
}

// The control popup shows a finished run whose into was deleted as what
// it is: its task needs the user, the run is not done.
func TestControlPopupShowsAFinishedRunsLostLanding(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.startCommittedRun(repo, "g", `[run]
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.Eventually(60*time.Second, "run g finished", func() bool {
		return e.runStatus(repo, "g").State == "finished"
	})
	e.Git(repo, "branch", "-q", "-D", "feat/x")

	p := e.pane(repo, owtBin, "popup", "control")
	var screen string
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen:\n%s", screen)
		}
	})
	e.Eventually(30*time.Second, "the popup shows a needing the user", func() bool {
		screen = e.Capture(p)
		return sectionOf(screen, "g-a") == "NEEDS YOU"
	})
	require.Contains(t, screen, "run g: 0/1 done", screen)
	require.Contains(t, screen, "feat/x", screen)
	e.keys(p, "Escape")
}
