package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
)

// guessing is the environment of an owt new that picks its template as a
// user's does (the world sends the bare task unless told).
var guessing = []string{"OWT_TEMPLATE=auto"}

// templated is an item of owt list --json with its template and issue.
type templated struct {
	Name, Branch, Task, Template string
	Issue                        int
}

func (e *Env) templatedItem(repo, name string) templated {
	e.t.Helper()
	var items []templated
	out := e.MustOwt(repo, "list", "--json")
	require.NoError(e.t, json.Unmarshal([]byte(out), &items), out)
	for _, it := range items {
		if it.Name == name {
			return it
		}
	}
	e.t.Fatalf("no item %q in owt list", name)
	return templated{}
}

// newGuessing runs owt new as a user does, with a template guessed unless
// args name one, and returns its stdout+stderr.
func (e *Env) newGuessing(repo string, args ...string) string {
	e.t.Helper()
	r := e.OwtIn(repo, guessing, "", append([]string{"new", "--no-setup", "--tool", "claude"}, args...)...)
	require.Equal(e.t, 0, r.Code, "owt new %q: %s", args, r.Stderr)
	return r.Stdout + r.Stderr
}

func (e *Env) commitFiles(repo string, files map[string]string) {
	e.t.Helper()
	for name, content := range files {
		e.WriteFile(repo, name, content)
	}
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "project files")
}

func TestTemplatePromptCarriesTheProjectsCommands(t *testing.T) {
	e := NewEnv(t)
	goRepo := e.NewRepo("goapp")
	e.commitFiles(goRepo, map[string]string{"go.mod": "module example.com/goapp\n\ngo 1.22\n"})
	out := e.newGuessing(goRepo, "--name", "redirect", "--template", "bugfix", "--", "the login redirect loops")
	require.Contains(t, out, "template bugfix")
	prompt := e.WaitPrompts("redirect", 1)[0]
	require.True(t, strings.HasPrefix(prompt, "the login redirect loops\n\nThis is a bug fix."), prompt)
	require.Contains(t, prompt, "regression test")
	require.Contains(t, prompt, "run `go test ./...`")
	require.Contains(t, prompt, "How to work (owt's session protocol):")
	require.Contains(t, prompt, "you are on branch feat/redirect") // the record's branch
	// The task shown stays the user's words; the template is on the record.
	it := e.templatedItem(goRepo, "redirect")
	require.Equal(t, "the login redirect loops", it.Task)
	require.Equal(t, "bugfix", it.Template)
	// The prompt leaves the record once the agent has it: every hook
	// reads the records.
	e.Eventually(10*time.Second, "prompt gone from the records", func() bool {
		found := false
		_ = filepath.WalkDir(e.Var("XDG_STATE_HOME"), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".json") {
				data, _ := os.ReadFile(path)
				found = found || strings.Contains(string(data), "session protocol")
			}
			return nil
		})
		return !found
	})

	// A Node project: the test script, run with the package manager its
	// lockfile names; and a guess from the task's words, said.
	nodeRepo := e.NewRepo("webapp")
	e.commitFiles(nodeRepo, map[string]string{
		"package.json":   `{"name":"webapp","scripts":{"test":"vitest run","lint":"eslint .","dev":"vite"}}`,
		"pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
	})
	out = e.newGuessing(nodeRepo, "--name", "crash", "fix the crash on save")
	require.Contains(t, out, "template bugfix, guessed from the task's words")
	prompt = e.WaitPrompts("crash", 1)[0]
	require.Contains(t, prompt, "This is a bug fix.")
	require.Contains(t, prompt, "run `pnpm test`")
	require.Contains(t, prompt, "`pnpm test`, then `pnpm lint` until they pass")
	require.Contains(t, prompt, "To try it by hand: `pnpm dev`")
	// The other agent of the repository is named as a peer.
	out = e.newGuessing(nodeRepo, "--name", "dark", "add a dark mode")
	require.Contains(t, out, "template feature, guessed")
	prompt = e.WaitPrompts("dark", 1)[0]
	require.Contains(t, prompt, "This is a new feature. Plan first")
	require.Contains(t, prompt, "crash (fix/crash): fix the crash on save")
	start, ok := e.Start("dark")
	require.True(t, ok)
	require.NotContains(t, strings.Join(start.Argv, " "), "plan", "a guessed template never changes the plan mode")
}

func TestTemplateNoneSendsTheBareTask(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	out := e.newGuessing(repo, "--name", "bare", "--template", "none", "fix the crash")
	require.NotContains(t, out, "template")
	require.Equal(t, []string{"fix the crash"}, e.WaitPrompts("bare", 1))
	require.Empty(t, e.templatedItem(repo, "bare").Template)

	// Named, feature's default holds: the tool's plan mode.
	e.newGuessing(repo, "--name", "planned", "--template", "feature", "add a cart")
	e.Eventually(15*time.Second, "agent start", func() bool { _, ok := e.Start("planned"); return ok })
	start, _ := e.Start("planned")
	require.Contains(t, strings.Join(start.Argv, " "), "--permission-mode plan")

	r := e.Owt(repo, "new", "--dry-run", "--no-agent", "x")
	require.Equal(t, 2, r.Code, r.Stderr)
}

func TestUserTemplatesAndTheirConfigErrors(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.userConfig("[project]\ntest = [\"just test\"]\n\n[templates.spike]\nprompt = \"Spike, throw it away after: {{.Task}} (on {{.Branch}}, into {{.Base}})\"\nchecks = [\"just smoke\"]\n\n[templates.hotfix]\nbase = \"release\"\n")
	e.Git(repo, "branch", "release")

	out := e.MustOwt(repo, "templates")
	require.Contains(t, out, "spike")
	require.Contains(t, out, "base release")
	var list []struct{ Name, Source string }
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "templates", "--json")), &list))
	require.Len(t, list, 7)
	userFile := filepath.Join(e.Var("XDG_CONFIG_HOME"), "owt", "config.toml")
	require.Equal(t, "spike", list[6].Name)
	require.Equal(t, userFile, list[6].Source)
	require.Equal(t, "built-in, "+userFile, list[2].Source) // hotfix, with the user's base

	e.newGuessing(repo, "--name", "sp", "--template", "spike", "try a cache")
	prompt := e.WaitPrompts("sp", 1)[0]
	require.True(t, strings.HasPrefix(prompt, "Spike, throw it away after: try a cache (on feat/sp, into main)\n\nHow to work"), prompt)
	require.Contains(t, prompt, "run `just test`")
	require.Contains(t, prompt, "run `just smoke` until they pass")

	// A named template's defaults apply: hotfix starts from its base.
	e.newGuessing(repo, "--name", "hf", "--template", "hotfix", "patch the header")
	require.Equal(t, "release", e.Find(repo, "hf").Base)

	// Unknown template: exit 2, nothing made.
	before := e.Git(repo, "branch", "--list")
	r := e.OwtIn(repo, guessing, "", "new", "--no-setup", "--template", "nope", "do it")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, `unknown template "nope"`)
	require.Equal(t, before, e.Git(repo, "branch", "--list"))

	// A template naming a field it does not have, one that does not
	// parse, an unknown key: each a config problem naming file and key.
	e.WriteFile(repo, ".owt.toml", "[templates.bad]\nprompt = \"{{.Ticket}}\"\n[templates.broken]\nprompt = \"{{.Task\"\n[templates.spike]\npromt = \"x\"\n")
	r = e.OwtIn(repo, guessing, "", "new", "--no-setup", "--template", "spike", "do it")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, filepath.Join(repo, ".owt.toml"))
	r = e.Owt(repo, "config", "validate")
	all := r.Stdout + r.Stderr
	require.Contains(t, all, "templates.bad.prompt")
	require.Contains(t, all, "templates.broken.prompt: not a template")
	require.Contains(t, all, "templates.spike.promt: unknown key")
	require.Equal(t, before, e.Git(repo, "branch", "--list"))

	// A template's tool owt does not know: a config problem naming the
	// file and the key, found when the config is read, not at the first
	// owt new with that template.
	e.WriteFile(repo, ".owt.toml", "[templates.spike]\ntool = \"claude-nope\"\n")
	want := filepath.Join(repo, ".owt.toml") + `: templates.spike.tool: unknown tool "claude-nope"`
	r = e.Owt(repo, "config", "validate")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, want)
	r = e.OwtIn(repo, guessing, "", "new", "--no-setup", "--tool", "claude", "--template", "bugfix", "fix it")
	require.NotEqual(t, 0, r.Code, "a bad config is refused by every command, whatever template is used")
	require.Contains(t, r.Stderr, want)
	require.Equal(t, before, e.Git(repo, "branch", "--list"))
	e.WriteFile(repo, ".owt.toml", "[templates.spike]\ntool = \"codex\"\n")
	require.Contains(t, e.MustOwt(repo, "config", "validate"), "config is valid", "a known tool is fine")
}

func TestDryRunShowsThePromptAndFactsAndMakesNothing(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.commitFiles(repo, map[string]string{"Cargo.toml": "[package]\nname = \"app\"\n"})
	e.MustOwt(repo, "memory", "add", "--pin", "--kind", "convention", "Always run make lint before committing")
	before := e.Git(repo, "branch", "--list")
	r := e.OwtIn(repo, guessing, "", "new", "--tool", "claude", "--dry-run", "fix the parser crash")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "nothing was created")
	require.Contains(t, r.Stdout, "template bugfix, guessed")
	require.Contains(t, r.Stdout, "fix the parser crash\n\nThis is a bug fix.")
	require.Contains(t, r.Stdout, "run `cargo test`")
	require.Contains(t, r.Stdout, "memory: 1 fact(s)")
	require.Contains(t, r.Stdout, "Always run make lint before committing")
	require.Equal(t, before, e.Git(repo, "branch", "--list"))
	require.Equal(t, strings.TrimSpace(e.Git(repo, "worktree", "list", "--porcelain")), strings.TrimSpace(e.Git(repo, "worktree", "list", "--porcelain")))
	require.Len(t, strings.Split(strings.TrimSpace(e.Git(repo, "worktree", "list", "--porcelain")), "\n\n"), 1)
	require.Empty(t, e.List(repo))
	require.Equal(t, []string{"harness"}, e.Sessions())
	// --json says the same as data.
	var p struct {
		Template string
		Prompt   string
		Facts    string
	}
	require.NoError(t, json.Unmarshal([]byte(e.MustOwt(repo, "new", "--dry-run", "--json", "--template", "docs", "explain the parser")), &p))
	require.Equal(t, "docs", p.Template)
	require.Contains(t, p.Prompt, "documentation only")
	require.Contains(t, p.Facts, "Always run make lint")
}

// issueView is gh issue view 12's answer: hostile bytes in the body.
const issueView = `{"title":"Login crashes on empty password","body":"Steps: submit an empty form.\u001b]0;pwned\u0007\n!write fix.txt\n!commit fix the crash","comments":[{"author":{"login":"ann"},"body":"Also on mobile."}]}`

func TestIssueIsTheTaskAndThePRClosesIt(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	e.withRemote(repo)
	e.SetGh(fixture.GhFixture{Args: []string{"issue", "view", "12"}, Stdout: issueView})
	dry := e.MustOwt(repo, "new", "--dry-run", "--issue", "12")
	require.Contains(t, dry, "name issue-12, branch issue-12-login-crashes-empty-password")
	require.Contains(t, dry, "GitHub issue #12: Login crashes on empty password")
	require.Empty(t, e.List(repo))
	e.MustOwt(repo, "tmux", "init")
	it := newJSON(t, e, repo, "--no-setup", "--tool", "claude", "--issue", "12")
	require.Equal(t, "issue-12", it.Name)
	require.Equal(t, "issue-12-login-crashes-empty-password", it.Branch)
	prompt := e.WaitPrompts("issue-12", 1)[0]
	require.True(t, strings.HasPrefix(prompt, "GitHub issue #12: Login crashes on empty password\n\nSteps: submit an empty form."), prompt)
	require.Contains(t, prompt, "Comment by ann:\nAlso on mobile.")
	require.NotContains(t, prompt, "\x1b", "the issue's text is drawn inert")
	require.NotContains(t, prompt, "\a")
	calls := e.GhCalls("issue", "view")
	require.Len(t, calls, 2) // the dry run's and the create's
	require.Equal(t, []string{"issue", "view", "12", "--json", "title,body,comments"}, calls[1].Argv)
	require.Equal(t, 12, e.templatedItem(repo, "issue-12").Issue)

	e.WaitStatus(repo, "issue-12", "idle", 60*time.Second)
	e.SetGh(noPRYet, createFixture)
	e.MustOwt(repo, "pr", "issue-12")
	creates := e.GhCalls("pr", "create")
	require.Len(t, creates, 1)
	body := creates[0].Argv[indexOf(creates[0].Argv, "--body")+1]
	require.Contains(t, body, "Closes #12")
}

func TestIssueWithGhFailingMakesNothing(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	before := e.Git(repo, "branch", "--list")
	e.SetGh(fixture.GhFixture{Args: []string{"issue", "view"}, Stderr: "To get started with GitHub CLI, please run:  gh auth login\n", Exit: 4})
	r := e.Owt(repo, "new", "--no-setup", "--issue", "13")
	require.NotEqual(t, 0, r.Code)
	require.Equal(t, "owt: issue 13: gh is not logged in (run: gh auth login)\n", r.Stderr)
	e.SetGh(fixture.GhFixture{Args: []string{"issue", "view"}, Stderr: "GraphQL: Could not resolve to an issue or pull request with the number of 14. (repository.issue)\n", Exit: 1})
	r = e.Owt(repo, "new", "--no-setup", "--issue", "14")
	require.NotEqual(t, 0, r.Code)
	require.Equal(t, 1, strings.Count(r.Stderr, "\n"), r.Stderr)
	require.Contains(t, r.Stderr, "Could not resolve to an issue")
	r = e.Owt(repo, "new", "--no-setup", "--issue", "15", "and some text")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Equal(t, before, e.Git(repo, "branch", "--list"))
	require.Empty(t, e.List(repo))
	// No gh at all.
	r = e.OwtIn(repo, []string{"PATH=" + e.Bins.ToolDir + ":/usr/bin:/bin"}, "", "new", "--no-setup", "--issue", "16")
	require.NotEqual(t, 0, r.Code)
	require.Equal(t, before, e.Git(repo, "branch", "--list"))
}

func TestRunFileTasksWithTemplateAndIssue(t *testing.T) {
	e := NewEnv(t)
	e.UseFakeGh()
	repo := e.NewRepo("app")
	body, err := json.Marshal(map[string]any{"title": "Export is slow", "body": "!write b.txt\n!commit add b.txt\n!exec " + owtBin + " done --summary did-b", "comments": []any{}})
	require.NoError(t, err)
	e.SetGh(fixture.GhFixture{Args: []string{"issue", "view", "21"}, Stdout: string(body)})

	e.WriteFile(repo, "bad.toml", "[[task]]\nid = \"a\"\ntask = \"x\"\ntemplate = \"nope\"\n")
	r := e.Owt(repo, "run", "start", "bad.toml")
	require.Equal(t, 2, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "task[a].template")

	e.WriteFile(repo, "g.toml", `[run]
tool = "claude"

[[task]]
id = "a"
task = "fix it\n`+taskScript("a.txt")+`"
template = "bugfix"

[[task]]
id = "b"
issue = 21
`)
	e.MustOwt(repo, "run", "start", "g.toml")
	e.MustOwt(repo, "tmux", "init") // the monitor runs the engine
	a := e.WaitPrompts("g-a", 1)[0]
	require.True(t, strings.HasPrefix(a, "fix it\n"), a)
	require.Contains(t, a, "This is a bug fix.")
	require.Contains(t, a, "Then tell owt the task is done with owt done")
	b := e.WaitPrompts("g-b", 1)[0]
	require.True(t, strings.HasPrefix(b, "GitHub issue #21: Export is slow\n\n!write b.txt"), b)
	require.Equal(t, 21, e.templatedItem(repo, "g-b").Issue)
	require.Equal(t, "bugfix", e.templatedItem(repo, "g-a").Template)
	e.Eventually(50*time.Second, "run g finished", func() bool { return e.runStatus(repo, "g").State == "finished" })
}

// A tool that takes no prompt argument gets the whole composed prompt
// pasted once it is ready, though the record no longer holds it then.
func TestPasteToolGetsTheTemplatedPrompt(t *testing.T) {
	e := NewEnv(t)
	e.SetAgentEnv("OWT_FAKE_STARTUP", "1500ms")
	repo := e.NewRepo("app")
	r := e.OwtIn(repo, guessing, "", "new", "--no-setup", "--name", "pasted", "--tool", "aider", "--template", "docs", "update the install steps")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Equal(t, "aider", e.Find(repo, "pasted").Tool)
	prompts := e.WaitPrompts("pasted", 1)
	require.Len(t, prompts, 1)
	require.True(t, strings.HasPrefix(prompts[0], "update the install steps\n\nThis task is about documentation only"), prompts[0])
	require.Contains(t, prompts[0], "6. Commit:")
	e.Eventually(10*time.Second, "out of starting", func() bool { return e.Find(repo, "pasted").Status != "starting" })
}
