package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/state"
)

func TestGuess(t *testing.T) {
	for task, want := range map[string]string{
		"fix the crash":                  "bugfix",
		"login crashes on empty input":   "bugfix",
		"add tests for the parser":       "test",
		"update the README":              "docs",
		"add dark mode":                  "feature",
		"prefix the names":               "feature", // a word, not a part of one
		"write docs for the new option":  "docs",
		"add tests for the README":       "test", // test before docs
		"add error handling":             "feature",
		"handle the error when it fails": "feature",
		"fix the docs":                   "bugfix", // fix before docs
		"fix the failing test":           "bugfix", // a failing test is a bug's symptom
		"the login page is broken":       "bugfix",
		"a regression in the importer":   "bugfix",
		"raise test coverage":            "test",
		"add comments to the blog":       "feature",
		"update the changelog":           "docs",
	} {
		require.Equal(t, want, Guess(task), task)
	}
}

// TestGuessTestsOnlyWhenAboutTests: the test template (which forbids
// changing the code under test) is for a task about tests, never for one
// that merely mentions them.
func TestGuessTestsOnlyWhenAboutTests(t *testing.T) {
	about := []string{
		"Write unit tests for the parser",
		"add tests for the parser",
		"Add a test for the login redirect",
		"please add more tests to the importer",
		"Increase test coverage of internal/git",
		"Fix the flaky test in auth_test.go",
		"deflake TestLogin",
		"Unit tests for the CSV reader",
		"test: cover the empty input case",
		"Test the login flow end to end",
		"Rewrite the integration tests with table-driven cases",
		"Clean up the e2e tests",
		"add regression tests for the crash on save", // tests are the object, though a crash is named
	}
	mentions := []string{
		"Add a login page and make sure all tests pass",
		"Add a login page; tests must pass",
		"add a login page that passes the tests",
		"Refactor the parser, keeping the tests green",
		"Implement the export button so the tests pass",
		"Add dark mode with tests",
		"make sure all tests pass after upgrading the router",
		"run the tests and fix what fails",
		"Update the API client and its tests",
		"tests fail on Windows",
		"Add a contest page",
		"Improve the attestation flow",
	}
	for _, task := range about {
		require.Equal(t, "test", Guess(task), task)
	}
	for _, task := range mentions {
		require.NotEqual(t, "test", Guess(task), task)
	}
	require.Equal(t, "feature", Guess("Add a login page and make sure all tests pass"))
	require.Equal(t, "bugfix", Guess("fix the crash on save and add a regression test"))
	require.Equal(t, "bugfix", Guess("Fix the broken tests in CI"))
}

func TestComposeBuiltinWithCommands(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644))
	cfg := config.Defaults()
	tpl, err := Find(cfg, "", "bugfix")
	require.NoError(t, err)
	require.Equal(t, BuiltIn, tpl.Source)
	p := Protocol{PromptData: config.PromptData{Task: "fix the crash", Branch: "fix/crash", Base: "main",
		Commands: Commands(cfg, dir, tpl), Peers: []config.PromptPeer{{Name: "other", Branch: "feat/x", Task: "add x"}}}}
	out, err := Compose(tpl, p)
	require.NoError(t, err)
	require.Contains(t, out, "fix the crash\n\nThis is a bug fix.")
	require.Contains(t, out, "regression test")
	require.Contains(t, out, "run `go test ./...`")
	require.Contains(t, out, "run `go test ./...`, then `go vet ./...` until they pass")
	require.Contains(t, out, "other (feat/x): add x")
	require.NotContains(t, out, "owt done")
	p.InRun = true
	out, _ = Compose(tpl, p)
	require.Contains(t, out, "owt done")
}

func TestUserTemplateAndOverrides(t *testing.T) {
	cfg := config.Defaults()
	no := false
	cfg.Project.Test = []string{"just test"}
	cfg.Templates = map[string]config.Template{
		"spike":   {Prompt: "Spike: {{.Task}} on {{.Branch}}", Tool: "codex", Checks: []string{"just check"}},
		"feature": {Plan: &no},
		"hotfix":  {Base: "main"},
		"empty":   {},
	}
	tpl, err := Find(cfg, "", "spike")
	require.NoError(t, err)
	require.Equal(t, "codex", tpl.Tool)
	out, err := Compose(tpl, Protocol{PromptData: config.PromptData{Task: "try x", Branch: "b", Base: "main", Commands: Commands(cfg, t.TempDir(), tpl)}})
	require.NoError(t, err)
	require.Contains(t, out, "Spike: try x on b\n\nHow to work")
	require.Contains(t, out, "run `just test`")
	require.Contains(t, out, "run `just check` until they pass")
	f, _ := Find(cfg, "", "feature")
	require.False(t, f.Plan)
	h, _ := Find(cfg, "", "hotfix")
	require.Equal(t, "main", h.Base)
	_, err = Find(cfg, "", "empty")
	require.ErrorContains(t, err, "no prompt")
	_, err = Find(cfg, "", "nope")
	require.ErrorIs(t, err, ErrUnknown)
	_, err = All(cfg, "")
	require.Error(t, err) // "empty" has no prompt
	delete(cfg.Templates, "empty")
	all, err := All(cfg, "")
	require.NoError(t, err)
	require.Len(t, all, 7)
	require.Equal(t, "spike", all[6].Name)
}

func TestConfigProblems(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	require.NoError(t, os.WriteFile(filepath.Join(dir, config.RepoFile), []byte(`
[templates.bad]
prompt = "{{.Nope}}"
[templates.broken]
prompt = "{{.Task"
[templates.odd]
promt = "x"
[project]
test = "make test"
`), 0o644))
	_, err := config.Load(dir)
	require.Error(t, err)
	msg := err.Error()
	require.Contains(t, msg, "templates.bad.prompt: the template fails")
	require.Contains(t, msg, "templates.broken.prompt: not a template")
	require.Contains(t, msg, "templates.odd.promt: unknown key")
	require.Contains(t, msg, "project.test")
	require.Contains(t, msg, filepath.Join(dir, config.RepoFile))
}

// An in-place agent is told it works in the user's own checkout, never
// that it has a worktree of its own; any other agent is told the reverse.
func TestProtocolSaysWhereTheAgentWorks(t *testing.T) {
	cfg := config.Defaults()
	c, err := Choose(cfg, "", "feature", "add x")
	require.NoError(t, err)
	rec := &state.Record{Name: "x", Task: "add x", Branch: "feat/x", Base: "main"}
	out, err := FirstPrompt(cfg, c, rec, t.TempDir(), nil, false)
	require.NoError(t, err)
	require.Contains(t, out, "you are on branch feat/x, in a worktree of your own; your work merges into main.")
	require.NotContains(t, out, "user's own checkout")

	rec.InPlace = true
	out, err = FirstPrompt(cfg, c, rec, t.TempDir(), nil, false)
	require.NoError(t, err)
	require.Contains(t, out, "you are on branch feat/x in the user's own checkout, not a worktree of your own")
	require.Contains(t, out, "the files here are the user's")
	require.Contains(t, out, "never stash, reset, clean or delete what you did not write; your work merges into main.")
	require.NotContains(t, out, "in a worktree of your own")
}

// A command named twice — in one list, or as both the test and the lint
// command — is listed once, and run once in the verify step.
func TestCommandsListNoDuplicates(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Makefile"), []byte("test:\n\tgo test ./...\nlint:\n\tgo vet ./...\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644))
	cfg := config.Defaults()
	cfg.Project.Test = []string{"make check", "make check ", "make e2e"}
	cfg.Project.Lint = []string{"make check"}
	tpl, err := Find(cfg, "", "feature")
	require.NoError(t, err)
	c := Commands(cfg, dir, tpl)
	require.Equal(t, []string{"make check", "make e2e"}, c.Test)
	require.Equal(t, []string{"make check"}, c.Lint)
	require.Equal(t, []string{"make check", "make e2e"}, c.Checks)
	out, err := Compose(tpl, Protocol{PromptData: config.PromptData{Task: "x", Branch: "b", Base: "main", Commands: c}})
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(out, "`make check`, then `make e2e` until they pass"), out)
	require.NotContains(t, out, "`make check`, then `make check`")

	cfg.Project.Test, cfg.Project.Lint = nil, nil
	tpl.Checks = []string{"just smoke", "just smoke"}
	c = Commands(cfg, dir, tpl)
	require.Equal(t, []string{"make test", "go test ./..."}, c.Test, "detected, each once")
	require.Equal(t, []string{"just smoke"}, c.Checks)
}
