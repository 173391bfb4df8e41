package run

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
)

const fullPlan = `
[run]
base = "main"
into = "feat/auth"
max_concurrent = 2
tool = "claude"
timeout = "45m"
settle = "30s"
checks = [["go", "test", "./..."]]

[run.retry]
max_attempts = 4
backoff = "10s"
backoff_max = "5m"

[[task]]
id = "models"
task = "Create User and Token models"
depends_on = []

[[task]]
id = "config"
task = "Add auth settings"
tool = "codex"
timeout = "10m"

[[task]]
id = "api"
task = "Login and logout endpoints"
depends_on = ["models", "config"]
checks = []
allow_empty = true

[[task]]
id = "docs"
task = "Document the auth flow"
depends_on = ["models"]

[[task]]
id = "e2e"
task = "End-to-end tests of login"
depends_on = ["api"]
`

func TestParseFullPlan(t *testing.T) {
	p, err := Parse("auth.toml", []byte(fullPlan))
	require.NoError(t, err)
	require.Equal(t, FormatRun, p.Format)
	require.Equal(t, "main", p.Base)
	require.Equal(t, "feat/auth", p.Into)
	require.Equal(t, 2, p.MaxConcurrent)
	require.Equal(t, "claude", p.Tool)
	require.Equal(t, Duration(45*time.Minute), p.Timeout)
	require.Equal(t, Duration(30*time.Second), p.Settle)
	require.Equal(t, [][]string{{"go", "test", "./..."}}, p.Checks)
	require.Equal(t, Retry{MaxAttempts: 4, Backoff: Duration(10 * time.Second), BackoffMax: Duration(5 * time.Minute)}, p.Retry)
	require.Len(t, p.Tasks, 5)

	models, _ := p.TaskByID("models")
	cfg, _ := p.TaskByID("config")
	api, _ := p.TaskByID("api")
	require.Equal(t, "claude", p.ToolOf(models))
	require.Equal(t, "codex", p.ToolOf(cfg))
	require.Equal(t, 45*time.Minute, p.TimeoutOf(models))
	require.Equal(t, 10*time.Minute, p.TimeoutOf(cfg))
	require.Equal(t, [][]string{{"go", "test", "./..."}}, p.ChecksOf(models))
	require.Equal(t, [][]string{}, p.ChecksOf(api), "an empty checks list replaces the plan's")
	require.True(t, api.AllowEmpty)

	require.Equal(t, [][]string{{"models", "config"}, {"api", "docs"}, {"e2e"}}, p.Waves())
	require.Equal(t, "5 tasks in 3 waves, at most 2 at once", p.String())
}

func TestParseDefaults(t *testing.T) {
	p, err := Parse("p.toml", []byte("[[task]]\nid = \"a\"\ntask = \"do a\"\n"))
	require.NoError(t, err)
	require.Equal(t, "", p.Base, "the current branch, resolved at registration")
	require.Equal(t, "", p.Into)
	require.Equal(t, DefaultMaxConcurrent, p.MaxConcurrent)
	require.Equal(t, Duration(DefaultTimeout), p.Timeout)
	require.Equal(t, Duration(DefaultSettle), p.Settle)
	require.Equal(t, DefaultMaxAttempts, p.Retry.MaxAttempts)
	require.Nil(t, p.Checks)
}

// The seed's tasks.toml maps onto the same plan.
func TestParseSeedTasksToml(t *testing.T) {
	seed := `
[batch]
max_concurrent = 2
auto_ship = true

[[tasks]]
id = "schema"
description = "Design the schema"

[[tasks]]
id = "api"
description = "Build the API"
depends_on = ["schema"]

[[tasks]]
id = "ui"
description = "Build the UI"
depends_on = ["schema"]
`
	p, err := Parse("tasks.toml", []byte(seed))
	require.NoError(t, err)
	require.Equal(t, FormatBatch, p.Format)
	require.Equal(t, 2, p.MaxConcurrent)
	require.True(t, p.IntoBase, "auto_ship lands done work in the base")
	require.Equal(t, "Build the API", p.Tasks[1].Task)
	require.Equal(t, [][]string{{"schema"}, {"api", "ui"}}, p.Waves())

	_, err = Parse("tasks.toml", []byte("[batch]\nauto_ship = false\n[[tasks]]\nid = \"a\"\ndescription = \"x\"\ntool = \"claude\"\n"))
	requireProblems(t, err, `tasks.toml: tasks[a].tool: unknown key`)
}

// problems returns the lines of a Parse error.
func problems(t *testing.T, err error) []string {
	t.Helper()
	var ps config.Problems
	require.True(t, errors.As(err, &ps), "want problems, got %v", err)
	var out []string
	for _, p := range ps {
		out = append(out, p.Error())
	}
	return out
}

func requireProblems(t *testing.T, err error, want ...string) {
	t.Helper()
	require.Equal(t, want, problems(t, err))
}

func TestParseReportsEveryProblemTogether(t *testing.T) {
	bad := `
[run]
max_concurrent = 0
timeout = "soon"
settle = 30
colour = "blue"
checks = ["go test ./..."]

[run.retry]
max_attempts = 0
backoff = "1m"
backoff_max = "10s"
jitter = true

[[task]]
id = "a"
task = "do a"
depends_on = ["b", "nosuch", "a"]
prio = 1

[[task]]
id = "b"
task = "   "
depends_on = ["c"]

[[task]]
id = "c"
task = "do c"
depends_on = ["a"]
checks = [[], [1], ["make"]]
timeout = "-5m"

[[task]]
id = "a"
task = "again"

[[task]]
id = "has space"
task = "x"

[[task]]
task = "no id"

[[task]]
id = ""
task = "empty id"
`
	requireProblems(t, func() error { _, err := Parse("plan.toml", []byte(bad)); return err }(),
		`plan.toml: run.max_concurrent: must be between 1 and 1000, not 0`,
		`plan.toml: run.timeout: "soon" is not a duration (like "30s", "45m", "1h30m")`,
		`plan.toml: run.settle: must be a duration in quotes (like "30s"), not an integer`,
		`plan.toml: run.colour: unknown key`,
		`plan.toml: run.checks[1]: must be an argv list (like ["go", "test", "./..."]), not a string: checks run without a shell`,
		`plan.toml: run.retry.max_attempts: must be between 1 and 1000, not 0`,
		`plan.toml: run.retry.jitter: unknown key`,
		`plan.toml: run.retry.backoff_max: must be at least backoff (1m0s)`,
		`plan.toml: task[a].prio: unknown key`,
		`plan.toml: task[b].task: is empty`,
		`plan.toml: task[c].checks[1]: must be a non-empty list of strings whose first names a program`,
		`plan.toml: task[c].checks[2]: must be a non-empty list of strings whose first names a program`,
		`plan.toml: task[c].timeout: must be at least 1s, not "-5m"`,
		`plan.toml: task[#6].id: missing: every task needs an id`,
		`plan.toml: task[a].id: duplicate id "a" (task #1 has it too)`,
		`plan.toml: task[#5].id: "has space" cannot name a worktree: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit, not ending in .lock, without '..', and not 'h' or 'help')`,
		`plan.toml: task[#7].id: is empty`,
		`plan.toml: task[a].depends_on: unknown task "nosuch"`,
		`plan.toml: task[a].depends_on: "a" is the task itself: a task cannot depend on itself`,
		`plan.toml: task[a].depends_on: dependency cycle a → b → c → a`,
	)
}

func TestParseNamesEveryCycle(t *testing.T) {
	plan := `
[[task]]
id = "a"
task = "a"
depends_on = ["b"]
[[task]]
id = "b"
task = "b"
depends_on = ["a"]
[[task]]
id = "c"
task = "c"
[[task]]
id = "d"
task = "d"
depends_on = ["e", "c"]
[[task]]
id = "e"
task = "e"
depends_on = ["d"]
`
	_, err := Parse("p.toml", []byte(plan))
	requireProblems(t, err,
		`p.toml: task[a].depends_on: dependency cycle a → b → a`,
		`p.toml: task[d].depends_on: dependency cycle d → e → d`,
	)
}

func TestParseShapeProblems(t *testing.T) {
	for _, c := range []struct{ name, plan, want string }{
		{"no tasks", "[run]\nmax_concurrent = 2\n", `p.toml: task: the plan has no tasks: add a [[task]] with an id and its text`},
		{"task not an array", "[task]\nid = \"a\"\ntask = \"x\"\n", `p.toml: task: must be an array of tables ([[task]]), not a table`},
		{"run not a table", "run = 3\n[[task]]\nid = \"a\"\ntask = \"x\"\n", `p.toml: run: must be a table ([run]), not an integer`},
		{"unknown table", "[runs]\nx = 1\n[[task]]\nid = \"a\"\ntask = \"x\"\n", `p.toml: runs: unknown key`},
		{"mixed formats", "[batch]\n[[task]]\nid = \"a\"\ntask = \"x\"\n", `p.toml: mixes owt's [run]/[[task]] with the seed's [batch]/[[tasks]]: use one format`},
		{"missing text", "[[task]]\nid = \"a\"\n", `p.toml: task[a].task: missing: every task needs its text`},
		{"depends_on not a list", "[[task]]\nid = \"a\"\ntask = \"x\"\ndepends_on = \"b\"\n", `p.toml: task[a].depends_on: must be a list of strings, not a string`},
		{"bad branch", "[run]\ninto = \"feat auth\"\n[[task]]\nid = \"a\"\ntask = \"x\"\n", `p.toml: run.into: "feat auth" is not a branch name`},
		{"into a full ref", "[run]\ninto = \"refs/heads/x\"\n[[task]]\nid = \"a\"\ntask = \"x\"\n", `p.toml: run.into: "refs/heads/x" is not a branch name: give the branch's name (x), not its ref`},
		{"base git refuses", "[run]\nbase = \"dev.lock\"\n[[task]]\nid = \"a\"\ntask = \"x\"\n", `p.toml: run.base: "dev.lock" is not a branch name (git refuses it)`},
		{"into ending in a slash", "[run]\ninto = \"feat/\"\n[[task]]\nid = \"a\"\ntask = \"x\"\n", `p.toml: run.into: "feat/" is not a branch name (git refuses it)`},
		{"syntax", "[[task]]\nid = \"a\ntask = \"x\"\n", `p.toml:2: task.id: strings cannot contain newlines`},
		{"checks not a list", "[run]\nchecks = \"make\"\n[[task]]\nid = \"a\"\ntask = \"x\"\n", `p.toml: run.checks: must be a list of argv lists (like [["go", "test", "./..."]]), not a string`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("p.toml", []byte(c.plan))
			require.Equal(t, []string{c.want}, problems(t, err))
		})
	}
}

func TestParseFileThatCannotBeRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nosuch.toml")
	_, err := ParseFile(path)
	requireProblems(t, err, path+": cannot read the plan: no such file or directory")

	ok := filepath.Join(t.TempDir(), "ok.toml")
	require.NoError(t, os.WriteFile(ok, []byte(fullPlan), 0o644))
	p, err := ParseFile(ok)
	require.NoError(t, err)
	require.Equal(t, ok, p.File)
}

func TestWavesKeepFileOrder(t *testing.T) {
	var b strings.Builder
	for _, id := range []string{"z", "y", "x"} {
		b.WriteString("[[task]]\nid = \"" + id + "\"\ntask = \"t\"\n")
	}
	b.WriteString("[[task]]\nid = \"w\"\ntask = \"t\"\ndepends_on = [\"x\", \"z\"]\n")
	p, err := Parse("p.toml", []byte(b.String()))
	require.NoError(t, err)
	require.Equal(t, [][]string{{"z", "y", "x"}, {"w"}}, p.Waves())
}

// A task's text reaches the agent as one argument: no NUL or other control
// characters, and not more than an argument can hold. A file that never
// ends (a FIFO, /dev/zero) is read only up to the plan limit.
func TestParseRefusesTaskTextNoAgentCanTake(t *testing.T) {
	_, err := Parse("p.toml", []byte("[[task]]\nid = \"a\"\ntask = \"say \\u0000 hi\"\n[[task]]\nid = \"b\"\ntask = \"clear \\u001b[2J\"\n"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "task[a].task: has a control character (U+0000)")
	require.Contains(t, err.Error(), "task[b].task: has a control character (U+001B)")

	long := strings.Repeat("x", MaxTaskText+1)
	_, err = Parse("p.toml", []byte("[[task]]\nid = \"a\"\ntask = \""+long+"\"\n"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "task[a].task: is 65537 bytes; at most 65536")

	_, err = Parse("p.toml", []byte("[[task]]\nid = \"a\"\ntask = \"line one\\n\\tline two\"\n"))
	require.NoError(t, err, "tabs and line breaks are text")

	_, err = ParseFile("/dev/zero")
	require.Error(t, err)
	require.Contains(t, err.Error(), "more than")
}

func TestParseTemplateAndIssue(t *testing.T) {
	p, err := Parse("p.toml", []byte("[[task]]\nid = \"a\"\ntask = \"do a\"\ntemplate = \"bugfix\"\n[[task]]\nid = \"b\"\nissue = 12\n"))
	require.NoError(t, err)
	require.Equal(t, "bugfix", p.Tasks[0].Template)
	require.Equal(t, 12, p.Tasks[1].Issue)
	require.Empty(t, p.Tasks[1].Task)
	_, err = Parse("p.toml", []byte("[[task]]\nid = \"a\"\ntask = \"do a\"\nissue = 0\n"))
	require.ErrorContains(t, err, "task[a].task: give either the task's text or its issue, not both")
	require.ErrorContains(t, err, "task[a].issue: must be an issue number")
}

func TestParseReview(t *testing.T) {
	p, err := Parse("r.toml", []byte("[run]\nreview = true\n\n[[task]]\nid = \"a\"\ntask = \"A\"\n\n[[task]]\nid = \"b\"\ntask = \"B\"\nreview = false\n"))
	require.NoError(t, err)
	require.True(t, p.ReviewOf(&p.Tasks[0]))
	require.False(t, p.ReviewOf(&p.Tasks[1]))
	_, err = Parse("r.toml", []byte("[run]\nreview = \"yes\"\n\n[[task]]\nid = \"a\"\ntask = \"A\"\nreview = 1\n"))
	require.ErrorContains(t, err, "run.review: must be true or false")
	require.ErrorContains(t, err, "task[a].review: must be true or false")
}

// [run] on_conflict takes "needs_you" or "resolve", and names anything else.
func TestParseOnConflict(t *testing.T) {
	p, err := Parse("p.toml", []byte("[run]\non_conflict = \"resolve\"\n[[task]]\nid = \"a\"\ntask = \"do a\"\n"))
	require.NoError(t, err)
	require.Equal(t, "resolve", p.OnConflict)
	_, err = Parse("p.toml", []byte("[run]\non_conflict = \"merge\"\n[[task]]\nid = \"a\"\ntask = \"do a\"\n"))
	require.Error(t, err)
	require.Contains(t, err.Error(), "on_conflict")
}
