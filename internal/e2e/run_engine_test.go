package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The run engine in the monitor: it starts ready tasks through owt new's
// Create, never more than max_concurrent at once, and judges done on
// evidence (a signal, commits, a clean tree).

type runEvent struct {
	At                  time.Time
	Event, Task, Detail string
}

func (e *Env) runEvents(dir, name string) []runEvent {
	e.t.Helper()
	var evs []runEvent
	out := e.MustOwt(dir, "run", "log", name, "--json")
	require.NoError(e.t, json.Unmarshal([]byte(out), &evs), out)
	return evs
}

// taskScript is a fake agent's task that writes a file, commits it and
// says it is done, as the engine's instruction tells it to.
func taskScript(file string) string {
	return "!write " + file + "\\n!commit add " + file + "\\n!exec " + owtBin + " done --summary did-" + file
}

func TestRunEngineStartsInDependencyOrderWithinTheLimitAndJudgesDone(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "g.toml", `[run]
max_concurrent = 1
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"

[[task]]
id = "b"
task = "`+taskScript("b.txt")+`"

[[task]]
id = "c"
task = "`+taskScript("c.txt")+`"
depends_on = ["a", "b"]
`)
	e.MustOwt(repo, "run", "start", "g.toml")
	e.MustOwt(repo, "tmux", "init") // starts this server's monitor, where the engine lives

	e.Eventually(50*time.Second, "run g finished", func() bool {
		return e.runStatus(repo, "g").State == "finished"
	})

	// The log: never two tasks running at once, c only after a and b are done.
	running := map[string]bool{}
	done := map[string]bool{}
	var order []string
	for _, ev := range e.runEvents(repo, "g") {
		switch ev.Event {
		case "starting":
			require.Empty(t, running, "%s starts while %v runs (max_concurrent = 1)", ev.Task, running)
			running[ev.Task] = true
			if ev.Task == "c" {
				require.True(t, done["a"] && done["b"], "c starts only after a and b are done")
			}
			order = append(order, "start "+ev.Task)
		case "done", "failed", "needs_you":
			require.Equal(t, "done", ev.Event, "%s: %s", ev.Task, ev.Detail)
			delete(running, ev.Task)
			done[ev.Task] = true
			order = append(order, "done "+ev.Task)
		}
	}
	require.Equal(t, []string{"start a", "done a", "start b", "done b", "start c", "done c"}, order)

	// Each task is done on its evidence, shown by owt run status --json.
	v := e.runStatus(repo, "g")
	for _, task := range v.Tasks {
		require.Equal(t, "done", task.State, task.ID)
		require.Equal(t, 1, *task.Attempt)
		require.Equal(t, "g-"+task.ID, *task.Name)
		var ev struct {
			Signal, Summary string
			Commits         int
			Dirty           bool
		}
		require.NoError(t, json.Unmarshal(task.Evidence, &ev), string(task.Evidence))
		require.Equal(t, "owt done", ev.Signal, task.ID)
		require.Equal(t, "did-"+task.ID+".txt", ev.Summary)
		require.Equal(t, 1, ev.Commits, "the agent's commit")
		require.False(t, ev.Dirty)
		require.Contains(t, e.Git(repo, "log", "--format=%s", *task.Branch), "add "+task.ID+".txt")
	}
	// The agent was told how to end its task.
	require.Contains(t, strings.Join(e.Prompts("g-a"), "\n"), "owt done --summary")
}

func TestRunEngineDoesNotCallAnIdleAgentWithoutCommitsDone(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "idle.toml", `[run]
tool = "claude"
settle = "1s"

[[task]]
id = "think"
task = "think about it, change nothing"
`)
	e.MustOwt(repo, "run", "start", "idle.toml")
	e.MustOwt(repo, "tmux", "init")

	// Idle past settle with nothing to show: one nudge goes to the agent;
	// it does nothing with it, so the task needs the user (never done).
	e.Eventually(30*time.Second, "the task needs the user", func() bool {
		return e.runStatus(repo, "idle").Tasks[0].State == "needs_you"
	})
	var kinds []string
	for _, ev := range e.runEvents(repo, "idle") {
		require.NotEqual(t, "done", ev.Event)
		kinds = append(kinds, ev.Event)
	}
	require.Subset(t, kinds, []string{"queued", "delivered", "needs_you"})
	v := e.runStatus(repo, "idle")
	require.Contains(t, e.MustOwt(repo, "run", "status", "idle", "--json"), "still after one message to the agent")
	require.Equal(t, "active", v.State)
	nudges := 0
	for _, p := range e.Prompts("idle-think") {
		if strings.Contains(p, "owt done --blocked") && !strings.Contains(p, "think about it") {
			nudges++
		}
	}
	require.Equal(t, 1, nudges, "one nudge")
}

func TestRunEngineLandsDoneTasksInIntoInDependencyOrder(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "notes.txt", "the user's own edit, not committed\n")
	e.WriteFile(repo, "land.toml", `[run]
into = "feat/x"
max_concurrent = 2
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"

[[task]]
id = "b"
task = "`+taskScript("b.txt")+`"

[[task]]
id = "c"
task = "`+taskScript("c.txt")+`"
depends_on = ["a", "b"]
`)
	mainBefore := e.Git(repo, "rev-parse", "main")
	statusBefore := e.Git(repo, "status", "--porcelain")
	e.MustOwt(repo, "run", "start", "land.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(50*time.Second, "run land finished", func() bool {
		return e.runStatus(repo, "land").State == "finished"
	})
	landed := map[string]bool{}
	for _, ev := range e.runEvents(repo, "land") {
		switch ev.Event {
		case "needs_you", "failed":
			t.Fatalf("%s %s: %s", ev.Task, ev.Event, ev.Detail)
		case "landed":
			landed[ev.Task] = true
		case "starting":
			if ev.Task == "c" {
				require.True(t, landed["a"] && landed["b"], "c starts only after a and b landed")
			}
		}
	}
	branchOf := map[string]string{}
	for _, task := range e.runStatus(repo, "land").Tasks {
		require.Equal(t, "landed", task.State, task.ID)
		branchOf[task.ID] = *task.Branch
	}
	// Everything landed in feat/x, c on top of a and b's work; main and
	// the user's checkout are as they were.
	files := e.Git(repo, "ls-tree", "--name-only", "feat/x")
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		require.Contains(t, files, f)
	}
	require.Contains(t, e.Git(repo, "ls-tree", "--name-only", branchOf["c"]), "a.txt", "c started from into after its parents landed")
	require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"))
	require.Equal(t, statusBefore, e.Git(repo, "status", "--porcelain"))
	require.Equal(t, "main", strings.TrimSpace(e.Git(repo, "branch", "--show-current")))
}

func TestRunEngineLandsNothingOnAPredictedConflict(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "clash.toml", clashPlan())
	e.MustOwt(repo, "run", "start", "clash.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(50*time.Second, "b needs you", func() bool {
		v := e.runStatus(repo, "clash")
		return v.Tasks[0].State == "landed" && v.Tasks[1].State == "needs_you"
	})
	var why string
	for _, ev := range e.runEvents(repo, "clash") {
		if ev.Event == "needs_you" && ev.Task == "b" {
			why = ev.Detail
		}
	}
	require.Contains(t, why, "landing in feat/x")
	require.Contains(t, why, "same.txt")
	require.Equal(t, "from-a", e.Git(repo, "show", "feat/x:same.txt"), "nothing of b landed")
	require.NotContains(t, e.Git(repo, "log", "--format=%s", "feat/x"), "from-b", "no commit of b in into")
	require.Equal(t, "active", e.runStatus(repo, "clash").State)
}

// clashPlan is a run whose two tasks write the same file, one after the
// other, landing in feat/x: a lands, b then conflicts with it.
func clashPlan() string {
	script := func(text string) string {
		return "!write same.txt " + text + "\\n!commit " + text + "\\n!exec " + owtBin + " done --summary " + text
	}
	return `[run]
into = "feat/x"
max_concurrent = 1
tool = "claude"

[[task]]
id = "a"
task = "` + script("from-a") + `"

[[task]]
id = "b"
task = "` + script("from-b") + `"
`
}
