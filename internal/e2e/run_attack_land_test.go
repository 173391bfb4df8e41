package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// What a run calls a task's work and what it calls landed: the base's
// commits merged into a task's branch are not the task's work; into that
// lost what landed says so in every view, and the way forward is resume;
// into rebased still holds the work that landed there.

// commitOnMain commits a new file on main in the user's checkout.
func (e *Env) commitOnMain(repo, file string) {
	e.t.Helper()
	e.WriteFile(repo, file, "from main\n")
	e.Git(repo, "add", file)
	e.Git(repo, "commit", "-q", "-m", "main: "+file)
}

// runListed is the run called name as owt run list --json shows it.
func (e *Env) runListed(dir, name string) (state string, finished int) {
	e.t.Helper()
	var views []struct {
		Name     string `json:"name"`
		State    string `json:"state"`
		Finished int    `json:"finished"`
	}
	out := e.MustOwt(dir, "run", "list", "--json")
	require.NoError(e.t, json.Unmarshal([]byte(out), &views), out)
	for _, v := range views {
		if v.Name == name {
			return v.State, v.Finished
		}
	}
	e.t.Fatalf("no run %s in owt run list --json: %s", name, out)
	return "", 0
}

func TestRunTaskThatOnlyMergedTheBaseIsNotDone(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	done := "\\n!exec " + owtBin + " done --summary "
	e.WriteFile(repo, "mm.toml", `[run]
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
	e.Git(repo, "add", "mm.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	e.MustOwt(repo, "run", "start", "mm.toml")
	e.logRunOnFailure(repo, "mm")
	e.MustOwt(repo, "tmux", "init")
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
	e.WriteFile(repo, "g.toml", `[run]
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.Git(repo, "add", "g.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	e.MustOwt(repo, "run", "start", "g.toml")
	e.logRunOnFailure(repo, "g")
	e.MustOwt(repo, "tmux", "init")
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
	e.WriteFile(repo, "r.toml", `[run]
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.Git(repo, "add", "r.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	e.MustOwt(repo, "run", "start", "r.toml")
	e.logRunOnFailure(repo, "r")
	e.MustOwt(repo, "tmux", "init")
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
	e.WriteFile(repo, "rb.toml", `[run]
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
	e.Git(repo, "add", "rb.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	e.MustOwt(repo, "run", "start", "rb.toml")
	e.logRunOnFailure(repo, "rb")
	e.MustOwt(repo, "tmux", "init")
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

func TestRunChecksOutputIsNotTheAgentsUncommittedWork(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "b.toml", `[run]
into = "feat/x"
tool = "claude"
settle = "1s"
checks = [["sh", "-c", "date > build.out"]]

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.Git(repo, "add", "b.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	e.MustOwt(repo, "run", "start", "b.toml")
	e.logRunOnFailure(repo, "b")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(90*time.Second, "a landed or needs the user", func() bool {
		s := e.runTaskStates(repo, "b")["a"]
		return s == "landed" || s == "needs_you"
	})
	s := e.runTaskStates(repo, "b")
	require.Equal(t, "landed", s["a"], s["a.why"])
	require.Empty(t, e.promptsWith("b-a", "uncommitted"), "the checks' output is not blamed on the agent")
	require.FileExists(t, e.Find(repo, "b-a").Path+"/build.out", "the checks' output is left where they wrote it")
	require.NotContains(t, e.Git(repo, "ls-tree", "--name-only", "feat/x"), "build.out")
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
	e.WriteFile(repo, "bar.toml", `[run]
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.Git(repo, "add", "bar.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	e.MustOwt(repo, "run", "start", "bar.toml")
	e.logRunOnFailure(repo, "bar")
	e.MustOwt(repo, "tmux", "init")
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
	want := "⏸bar 0/1 #[fg=yellow,bold]▲1#[default]"
	e.Eventually(30*time.Second, "the bar shows the run waiting for the user", func() bool { return runs() == want })
	require.Equal(t, "needs_you", e.runTaskStates(repo, "bar")["a"])
}

// The control popup shows a finished run whose into was deleted as what
// it is: its task needs the user, the run is not done.
func TestControlPopupShowsAFinishedRunsLostLanding(t *testing.T) {
	e := newQuietEnv(t)
	repo := e.NewRepo("shop")
	e.WriteFile(repo, "g.toml", `[run]
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.Git(repo, "add", "g.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	e.MustOwt(repo, "run", "start", "g.toml")
	e.logRunOnFailure(repo, "g")
	e.MustOwt(repo, "tmux", "init")
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
