package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Task graphs, the part built so far: owt run start validates and
// registers a plan, owt run status/list/log show it, pause/resume/stop
// change its state. No agent is started by any of it yet.

const authPlan = `[run]
into = "feat/auth"
max_concurrent = 2
checks = [["true"]]

[run.retry]
max_attempts = 2

[[task]]
id = "models"
task = "Create User and Token models"

[[task]]
id = "config"
task = "Add auth settings"

[[task]]
id = "api"
task = "Login and logout endpoints"
depends_on = ["models", "config"]
`

// runFiles lists everything under the runs state dir.
func (e *Env) runFiles() []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(e.Root, "state", "owt", "runs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, filepath.Base(p))
		}
		return nil
	})
	return out
}

type runStatusJSON struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Base  string `json:"base"`
	Into  string `json:"into"`
	Tasks []struct {
		ID        string          `json:"id"`
		State     string          `json:"state"`
		Attempt   *int            `json:"attempt"`
		Name      *string         `json:"name"`
		Branch    *string         `json:"branch"`
		Evidence  json.RawMessage `json:"evidence"`
		DependsOn []string        `json:"depends_on"`
		Why       string          `json:"why"`
	} `json:"tasks"`
}

func (e *Env) runStatus(dir string, args ...string) runStatusJSON {
	e.t.Helper()
	out := e.MustOwt(dir, append([]string{"run", "status", "--json"}, args...)...)
	var v runStatusJSON
	require.NoError(e.t, json.Unmarshal([]byte(out), &v), out)
	return v
}

func TestRunStartDryRunChangesNothing(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "auth.toml", authPlan)
	e.Git(repo, "add", "auth.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	before := e.snapshot(repo)

	out := e.MustOwt(repo, "run", "start", "auth.toml", "--dry-run")
	require.Contains(t, out, "plan auth.toml: 3 tasks in 2 waves, at most 2 at once")
	require.Contains(t, out, "wave 1: models, config\n")
	require.Contains(t, out, "wave 2: api (after models, config)\n")
	require.Contains(t, out, "base main, done tasks land in feat/auth")
	require.Contains(t, out, "dry run: nothing registered")

	require.Empty(t, e.runFiles(), "no run state, no log, no lock")
	require.Equal(t, before, e.snapshot(repo))
	require.Empty(t, e.Git(repo, "status", "--porcelain"))
	r := e.Owt(repo, "run", "status", "auth")
	require.Equal(t, 3, r.Code, r.Stderr)
}

func TestRunStartRegistersAndShowsStatus(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "auth.toml", authPlan)
	before := e.snapshot(repo)

	// Registered for a tmux server that does not run: no monitor drives
	// it, so it stays as registered (and says why).
	nowhere := filepath.Join(e.Root, "no-server")
	out := e.MustOwt(repo, "-S", nowhere, "run", "start", "auth.toml")
	require.Contains(t, out, "wave 2: api (after models, config)")
	require.Contains(t, out, "registered run auth")
	require.Contains(t, out, "no tmux server runs at", "it says plainly that nothing drives it")
	require.Equal(t, before, e.snapshot(repo), "registering starts no agent, makes no branch or worktree")

	path := filepath.Join(e.Root, "state", "owt", "runs", "auth.json")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	v := e.runStatus(repo, "auth")
	require.Equal(t, "auth", v.Name)
	require.Equal(t, "active", v.State)
	require.Equal(t, "main", v.Base, "the branch checked out where it was started")
	require.Equal(t, "feat/auth", v.Into)
	require.Len(t, v.Tasks, 3)
	for i, id := range []string{"models", "config", "api"} {
		task := v.Tasks[i]
		require.Equal(t, id, task.ID)
		require.Equal(t, "pending", task.State)
		require.NotNil(t, task.Attempt, "attempt is always there")
		require.Equal(t, 0, *task.Attempt)
		require.NotNil(t, task.Name, "name is always there")
		require.NotNil(t, task.Branch, "branch is always there")
		require.Equal(t, "null", string(task.Evidence), "evidence is always there")
	}
	require.Equal(t, []string{"models", "config"}, v.Tasks[2].DependsOn)
	require.Equal(t, v, e.runStatus(repo), "the only run is the default")

	text := e.MustOwt(repo, "run", "status")
	require.Contains(t, text, "run auth: active, 0/3 done, base main, lands in feat/auth")
	// In another repository, the run meant is one of that repository's:
	// none there, so none is shown.
	other := e.NewRepo("other")
	r := e.Owt(other, "run", "status")
	requireOneLineError(t, r, "no such run in "+other+" (runs of other repos: auth; name one)")
	require.Equal(t, 3, r.Code)
	require.Contains(t, e.MustOwt(other, "run", "status", "auth"), "run auth: active", "named, it is shown anywhere")
	require.Contains(t, text, "no owt monitor runs for the tmux server", "nothing drives it, and status says so")

	var list []struct{ Name, State string }
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "run", "list", "--json")), &list))
	require.Equal(t, []struct{ Name, State string }{{"auth", "active"}}, list)
	require.Contains(t, e.MustOwt(repo, "run", "list"), "auth  active  0/3")

	// The name is taken now; another name registers the same plan again,
	// and owt batch is owt run start.
	r = e.Owt(repo, "run", "start", "auth.toml")
	requireOneLineError(t, r, "run auth exists")
	require.Equal(t, 1, r.Code)
	out = e.MustOwt(repo, "-S", nowhere, "batch", "auth.toml", "--name", "auth-2")
	require.Contains(t, out, "registered run auth-2")
	require.Equal(t, "active", e.runStatus(repo, "auth-2").State)

	for _, args := range [][]string{{"run", "status", "nosuch"}, {"run", "log", "nosuch"}, {"run", "pause", "nosuch"}} {
		r := e.Owt(repo, args...)
		requireOneLineError(t, r, `no such run "nosuch"`)
		require.Equal(t, 3, r.Code, "%v: %s", args, r.Stderr)
	}
	r = e.Owt(repo, "run", "start", "auth.toml", "--name", "bad name")
	requireOneLineError(t, r, "cannot name a run")
	require.Equal(t, 2, r.Code)
}

func TestRunPauseResumeStopAreLogged(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "auth.toml", authPlan)
	// A server that does not run: no monitor starts the tasks meanwhile.
	nowhere := filepath.Join(e.Root, "no-server")
	e.MustOwt(repo, "-S", nowhere, "run", "start", "auth.toml")

	require.Equal(t, "run auth: paused\n", e.MustOwt(repo, "run", "pause", "auth"))
	require.Equal(t, "paused", e.runStatus(repo, "auth").State)
	require.Equal(t, "run auth is already paused\n", e.MustOwt(repo, "run", "pause", "auth"))
	resumed := e.MustOwt(repo, "-S", nowhere, "run", "resume", "auth")
	require.True(t, strings.HasPrefix(resumed, "run auth: active\nno tmux server runs at "), resumed)
	require.Equal(t, "run auth: stopped\n", e.MustOwt(repo, "run", "stop", "auth"))
	require.Equal(t, "stopped", e.runStatus(repo, "auth").State)

	var events []struct{ Event, Detail string }
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "run", "log", "auth", "--json")), &events))
	require.Equal(t, []struct{ Event, Detail string }{
		{"registered", "3 tasks in 2 waves, at most 2 at once"},
		{"paused", "active → paused"},
		{"resumed", "paused → active"},
		{"stopped", "active → stopped"},
	}, events, "one event per change, in order; the no-op pause logs nothing")

	text := e.MustOwt(repo, "run", "log", "auth")
	lines := strings.Split(strings.TrimSpace(text), "\n")
	require.Len(t, lines, 4)
	require.Contains(t, lines[1], "paused  active → paused")

	r := e.Owt(repo, "run", "pause")
	require.Equal(t, 2, r.Code, "pause needs a NAME")
}

// A bad plan is exit 2, one line per problem naming the file and the key,
// and nothing registered.
func TestRunPlanProblemsExitTwo(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "bad.toml", `[run]
max_concurrent = 2
colour = "blue"

[[task]]
id = "a"
task = "first"
depends_on = ["b"]

[[task]]
id = "b"
task = "second"
depends_on = ["a"]
`)
	for _, args := range [][]string{{"run", "start", "bad.toml"}, {"run", "start", "--dry-run", "bad.toml"}, {"batch", "bad.toml"}} {
		r := e.Owt(repo, args...)
		require.Equal(t, 2, r.Code, "%v: %s", args, r.Stderr)
		require.Empty(t, r.Stdout)
		require.Equal(t, []string{
			"owt: bad.toml: run.colour: unknown key",
			"owt: bad.toml: task[a].depends_on: dependency cycle a → b → a",
		}, strings.Split(strings.TrimSpace(r.Stderr), "\n"))
	}
	require.Empty(t, e.runFiles())

	// What needs the repository is checked before anything is written.
	e.WriteFile(repo, "base.toml", "[run]\nbase = \"nosuch\"\ntool = \"nosuchtool\"\n[[task]]\nid = \"a\"\ntask = \"x\"\n")
	r := e.Owt(repo, "run", "start", "base.toml")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, `owt: base.toml: run.base: no branch "nosuch"`)
	require.Contains(t, r.Stderr, `owt: base.toml: run.tool: unknown tool "nosuchtool"`)
	require.Empty(t, e.runFiles())

	r = e.Owt(repo, "run", "start", "missing.toml")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "missing.toml: cannot read the plan")
}

// The seed's tasks.toml registers as it is.
func TestRunAcceptsTheSeedsTasksToml(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "tasks.toml", `[batch]
max_concurrent = 2
auto_ship = true

[[tasks]]
id = "schema"
description = "Design the schema"

[[tasks]]
id = "api"
description = "Build the API"
depends_on = ["schema"]
`)
	out := e.MustOwt(repo, "-S", filepath.Join(e.Root, "no-server"), "batch", "tasks.toml")
	require.Contains(t, out, "wave 2: api (after schema)")
	require.Contains(t, out, "done tasks land in main", "auto_ship lands in the base")
	v := e.runStatus(repo, "tasks")
	require.Equal(t, "main", v.Into)
	require.Equal(t, []string{"schema", "api"}, []string{v.Tasks[0].ID, v.Tasks[1].ID})
}

// One broken run file does not hide the others, asking about a run that
// does not exist leaves nothing behind, and a plan too large is refused.
func TestRunListSurvivesABrokenRunFile(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "auth.toml", authPlan)
	e.MustOwt(repo, "-S", filepath.Join(e.Root, "no-server"), "run", "start", "auth.toml")
	e.MustOwt(repo, "-S", filepath.Join(e.Root, "no-server"), "run", "start", "auth.toml", "--name", "conc")
	require.NoError(t, os.WriteFile(filepath.Join(e.Root, "state", "owt", "runs", "conc.json"), []byte(`{"version": 1, "na`), 0o600))

	r := e.Owt(repo, "run", "list")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "auth")
	require.Contains(t, r.Stderr, "conc.json is corrupt")

	before := e.runFiles()
	for _, verb := range []string{"status", "log", "pause"} {
		require.Equal(t, 3, e.Owt(repo, "run", verb, "nosuch").Code, verb)
	}
	require.Equal(t, before, e.runFiles(), "a run that does not exist gets no files")

	e.WriteFile(repo, "huge.toml", "# "+strings.Repeat("x", 2<<20)+"\n"+authPlan)
	r = e.Owt(repo, "run", "start", "huge.toml", "--dry-run")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "owt reads plans of up to")
}

// Two runs whose tasks would share a worktree name are refused at
// registration, not left to fail every attempt; --dry-run still validates
// a plan whose run name is taken, and says so.
func TestRunStartRefusesWorktreeNamesAnotherRunHas(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	nowhere := filepath.Join(e.Root, "no-server")
	e.WriteFile(repo, "q.toml", "[[task]]\nid = \"a-b\"\ntask = \"one\"\n")
	e.WriteFile(repo, "q-a.toml", "[[task]]\nid = \"b\"\ntask = \"two\"\n")
	e.MustOwt(repo, "-S", nowhere, "run", "start", "q.toml")

	r := e.Owt(repo, "-S", nowhere, "run", "start", "q-a.toml")
	requireOneLineError(t, r, "task b of run q-a would get the worktree q-a-b, which task a-b of run q has")
	require.Equal(t, 1, r.Code)
	require.Equal(t, 3, e.Owt(repo, "run", "status", "q-a").Code, "nothing registered")

	out := e.MustOwt(repo, "-S", nowhere, "run", "start", "q.toml", "--dry-run")
	require.Contains(t, out, "note: a run named q exists")
	require.Contains(t, out, "dry run: nothing registered")
}

// owt run forget frees a run's name: a corrupt run, or a stopped one; an
// active run is refused; worktrees are not its to remove.
func TestRunForget(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	nowhere := filepath.Join(e.Root, "no-server")
	e.WriteFile(repo, "auth.toml", authPlan)
	e.MustOwt(repo, "-S", nowhere, "run", "start", "auth.toml")
	e.MustOwt(repo, "-S", nowhere, "run", "start", "auth.toml", "--name", "broken")
	require.NoError(t, os.WriteFile(filepath.Join(e.Root, "state", "owt", "runs", "broken.json"), []byte(`{"vers`), 0o600))

	require.Contains(t, e.MustOwt(repo, "run", "forget", "broken"), "forgot run broken")
	r := e.Owt(repo, "run", "forget", "auth")
	requireOneLineError(t, r, "run auth is active: 'owt run stop auth' first")
	require.Equal(t, 1, r.Code)
	e.MustOwt(repo, "run", "stop", "auth")
	e.MustOwt(repo, "run", "forget", "auth")
	require.Equal(t, 3, e.Owt(repo, "run", "status", "auth").Code)
	require.Equal(t, 3, e.Owt(repo, "run", "forget", "auth").Code)
	require.Empty(t, e.runFiles(), "no state, log or lock left")
	e.MustOwt(repo, "-S", nowhere, "run", "start", "auth.toml") // the name is free again
}

// A run belongs to the tmux server it was registered under while that
// server runs: owt run resume from another server refuses to adopt it.
func TestRunResumeFromAnotherServerRefusesWhileItsServerRuns(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	other := filepath.Join(e.Root, "other.sock")
	startServer(t, e, "-S", other)
	e.WriteFile(repo, "auth.toml", authPlan)
	e.MustOwt(repo, "-S", other, "run", "start", "auth.toml")
	e.MustOwt(repo, "-S", other, "run", "pause", "auth")

	r := e.Owt(repo, "run", "resume", "auth") // the harness server
	requireOneLineError(t, r, "belongs to the tmux server at "+other+", which still runs")
	require.Equal(t, 1, r.Code)
	require.Equal(t, "paused", e.runStatus(repo, "auth").State, "nothing changed")
	require.Empty(t, e.eventsOf(repo, "auth", "adopted"))
}
