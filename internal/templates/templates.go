// Package templates turns a task into an agent's first prompt: a task
// template (built in, or the user's [templates.NAME]) shapes the task,
// and one session protocol — orient, explore, implement, test, verify,
// commit — follows it in every prompt, with the project's own commands.
//
// It reads the config, the records and the worktree's files; it starts
// nothing and writes nothing.
package templates

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/setup"
)

// None and Auto are the template names that are not templates: the bare
// task, and a template guessed from the task's words.
const (
	None = "none"
	Auto = "auto"
)

// Template is a task template ready to use.
type Template struct {
	Name   string   `json:"name"`
	Source string   `json:"source"` // "built-in", or the config file that defines it
	About  string   `json:"about"`
	Prompt string   `json:"prompt"`
	Plan   bool     `json:"plan,omitempty"`
	Tool   string   `json:"tool,omitempty"`
	Base   string   `json:"base,omitempty"`
	Checks []string `json:"checks,omitempty"`
}

// BuiltIn is the source of the built-in templates.
const BuiltIn = "built-in"

// ErrUnknown is returned for a template name owt does not know.
var ErrUnknown = errors.New("unknown template")

var builtins = []Template{
	{Name: "feature", About: "plan first, tests with the code", Plan: true, Prompt: `{{.Task}}

This is a new feature. Plan first: say what you will change and why, file by file, before you edit. Write the tests with the code, not after it, and keep the change to what the task asks.`},
	{Name: "bugfix", About: "reproduce, root cause, smallest fix, regression test", Prompt: `{{.Task}}

This is a bug fix. Reproduce the bug first (a failing test, or the exact steps). Find its root cause, not just where it shows. Make the smallest fix that removes the cause, and add a regression test that fails without the fix and passes with it.`},
	{Name: "hotfix", About: "the smallest safe change, no refactors", Prompt: `{{.Task}}

This is a hotfix: make the smallest safe change that fixes it. No refactors, no renames, no clean-ups, no new dependencies; touch as few lines as you can, and say in the commit what the risk is.`},
	{Name: "refactor", About: "behaviour unchanged, tests green first", Prompt: `{{.Task}}

This is a refactor: behaviour must not change. Run the tests first and make sure they are green before you touch anything; where the code you change has no test, add one that pins today's behaviour first. Change structure in small steps, with the tests green after each.`},
	{Name: "test", About: "tests only", Prompt: `{{.Task}}

This task is about tests only: add or fix tests, and do not change the code under test. If a test shows a real bug, leave the test failing or skipped with a note saying so, and say it in your summary.`},
	{Name: "docs", About: "docs only", Prompt: `{{.Task}}

This task is about documentation only: README, docs and comments. Do not change code behaviour. Check every command and example you write against the code as it is.`},
}

// protocol is the session protocol every prompt ends with.
const protocol = `How to work (owt's session protocol):
1. Orient: {{if .InPlace}}you are on branch {{.Branch}} in the user's own checkout, not a worktree of your own: the files here are the user's, so change only what the task needs, and never stash, reset, clean or delete what you did not write{{else}}you are on branch {{.Branch}}, in a worktree of your own{{end}}; your work merges into {{.Base}}.{{if .Peers}} Other agents work on this repository at the same time, each in its own worktree:{{range .Peers}}
   - {{.Name}} ({{.Branch}}): {{.Task}}{{end}}
   Stay out of what they are doing.{{end}}
2. Explore: read the code the task touches, and its tests, before changing anything.
3. Implement: make the change the task asks for, in the style of the code around it.
4. Test: {{if .Commands.Test}}run {{list .Commands.Test}}{{else}}run the project's tests (no test command was found: look in the README, Makefile or CI config){{end}}, and add tests for what you changed.{{if .Commands.Dev}} To try it by hand: {{list .Commands.Dev}}.{{end}}
5. Verify: {{if .Commands.Checks}}run {{list .Commands.Checks}} until they pass, {{end}}read your whole diff (git diff {{.Base}}...HEAD), and make sure it does only what the task asks.
6. Commit: commit your work on this branch with a message that says what changed and why.{{if .InRun}} Then tell owt the task is done with owt done, as the task says.{{end}}`

// Protocol is the data of the session protocol.
type Protocol struct {
	config.PromptData
	InRun   bool // the agent is a task of an owt run
	InPlace bool // the agent works in the user's own checkout (owt new --in-place)
}

var funcs = template.FuncMap{"list": func(cmds []string) string {
	q := make([]string, len(cmds))
	for i, c := range cmds {
		q[i] = "`" + c + "`"
	}
	return strings.Join(q, ", then ")
}}

// protocolTemplate is parsed on first use: owt's hot paths (the hook)
// never compose a prompt and should not pay for it at start.
var protocolTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("protocol").Funcs(funcs).Option("missingkey=error").Parse(protocol))
})

// All is every template: the built-in ones (with the config's defaults
// over them), then the user's, by name. repoRoot names the files.
func All(cfg config.Config, repoRoot string) ([]Template, error) {
	var out []Template
	seen := map[string]bool{}
	for _, b := range builtins {
		t, err := Find(cfg, repoRoot, b.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
		seen[b.Name] = true
	}
	names := make([]string, 0, len(cfg.Templates))
	for n := range cfg.Templates {
		if !seen[n] {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		t, err := Find(cfg, repoRoot, n)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Names are the names of every template, for help and errors.
func Names(cfg config.Config) []string {
	var out []string
	for _, b := range builtins {
		out = append(out, b.Name)
	}
	var user []string
	for n := range cfg.Templates {
		if _, ok := builtin(n); !ok {
			user = append(user, n)
		}
	}
	sort.Strings(user)
	return append(out, user...)
}

func builtin(name string) (Template, bool) {
	for _, b := range builtins {
		if b.Name == name {
			b.Source = BuiltIn
			return b, true
		}
	}
	return Template{}, false
}

// Find is the template called name: a built-in one with the config's
// [templates.NAME] over it, or the user's own.
func Find(cfg config.Config, repoRoot, name string) (Template, error) {
	t, isBuiltin := builtin(name)
	over, isUser := cfg.Templates[name]
	if !isBuiltin && !isUser {
		return Template{}, fmt.Errorf("%w %q (one of %s, or none)", ErrUnknown, name, strings.Join(Names(cfg), ", "))
	}
	if !isUser {
		return t, nil
	}
	where := config.Locate(repoRoot, config.Problems{{Key: "templates." + name}})[0].File
	switch {
	case isBuiltin:
		t.Source = BuiltIn + ", " + where
	case over.Prompt == "":
		return Template{}, fmt.Errorf("%s: templates.%s: no prompt, and no built-in template has that name", where, name)
	default:
		t = Template{Name: name, Source: where, About: "your own"}
	}
	if over.Prompt != "" {
		t.Prompt = over.Prompt
	}
	if over.Plan != nil {
		t.Plan = *over.Plan
	}
	if over.Tool != "" {
		t.Tool = over.Tool
	}
	if over.Base != "" {
		t.Base = over.Base
	}
	if len(over.Checks) > 0 {
		t.Checks = over.Checks
	}
	return t, nil
}

// guesses are the words that say a task's kind, in the order they win,
// after aboutTests.
var guesses = sync.OnceValue(func() []struct {
	re   *regexp.Regexp
	name string
} {
	return []struct {
		re   *regexp.Regexp
		name string
	}{
		{regexp.MustCompile(`(?i)\b(fix(es|ed|ing)?|bugs?|crash(es|ed|ing)?|broken|regression)\b`), "bugfix"},
		{regexp.MustCompile(`(?i)\b(docs?|documentation|readme|changelog)\b`), "docs"},
	}
})

// Guess is the template a task's words suggest, the first that fits:
// test when the task is about tests (its first clause asks for tests to
// be written or fixed: aboutTests), bugfix for a fix, bug or crash (or
// broken, a regression), docs for docs or the README, else feature. A
// task that merely mentions tests ("add a login page and make sure all
// tests pass") is not a test task: the test template forbids changing
// the code under test. "Error" alone says nothing ("add error handling"
// is a feature).
func Guess(task string) string {
	if aboutTests(task) {
		return "test"
	}
	for _, g := range guesses() {
		if g.re.MatchString(task) {
			return g.name
		}
	}
	return "feature"
}

// Words of aboutTests. testVerbs ask for tests as their object;
// testNouns name tests; notTestObject ends the look for one (a clause
// of its own: "a page that passes the tests", "so the tests pass").
var (
	testVerbs = wordSet("add", "write", "create", "improve", "increase", "raise", "expand", "extend", "fix",
		"repair", "stabilise", "stabilize", "rewrite", "update", "refactor", "clean", "tidy",
		"speed", "port", "migrate", "unskip", "reenable", "re-enable", "cover", "implement", "need", "needs")
	testNouns     = wordSet("test", "tests", "spec", "specs", "testcase", "testcases", "coverage", "unittest", "unittests")
	notTestObject = wordSet("that", "which", "so", "to", "until", "when", "while", "where", "if", "and", "or",
		"then", "with", "without", "but", "pass", "passes", "passing", "make", "ensure", "keep", "run")
	// failingTest: a failing or broken test is a symptom, most often of
	// the code: the bugfix template, which may change the code, fits.
	failingTest = wordSet("failing", "failed", "broken", "red")
	testOutcome = wordSet("fail", "fails", "failing", "failed", "pass", "passes", "passing", "passed", "break", "breaks")
	testStarts  = wordSet("test", "tests", "unit", "integration", "e2e", "end-to-end", "regression", "more", "missing", "spec", "specs")
)

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// taskWords are the words of a task's first clause, lower case: up to the
// first sentence or clause mark (. , ; : !  ?) — "test: …" (a commit
// type) keeps its first word.
func taskWords(task string) []string {
	task = strings.ToLower(task)
	if i := strings.IndexAny(task, ".,;!?\n"); i >= 0 {
		task = task[:i]
	}
	f := strings.FieldsFunc(task, func(r rune) bool {
		return !(r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	return f
}

// aboutTests reports whether a task asks for work on tests themselves:
// its first clause starts with a test word ("unit tests for the parser",
// "test: cover the importer", "test the login flow") or with a verb whose
// object, within a few words, is tests ("add tests for X", "raise test
// coverage", "fix the flaky test"). Tests named later, or after a word
// that starts a clause of their own ("… so the tests pass", "make sure
// all tests pass"), are a mention, not the task; so is a failing or
// broken test (a bug's symptom).
func aboutTests(task string) bool {
	w := taskWords(task)
	if len(w) > 0 && w[0] == "please" {
		w = w[1:]
	}
	if len(w) == 0 {
		return false
	}
	object := func(from int) bool {
		for i := from; i < len(w) && i < from+5; i++ {
			switch {
			case notTestObject[w[i]]:
				return false
			case testNouns[w[i]]:
				if i > 0 && failingTest[w[i-1]] {
					return false
				}
				if i+1 < len(w) && testOutcome[w[i+1]] { // "tests fail", "tests pass": a state, not a task
					return false
				}
				return true
			}
		}
		return false
	}
	if w[0] == "deflake" {
		return true
	}
	if testStarts[w[0]] {
		return object(0)
	}
	if testVerbs[w[0]] {
		from := 1
		if from < len(w) && (w[from] == "up") { // clean up, speed up
			from++
		}
		return object(from)
	}
	return false
}

// Commands are the project's commands for a prompt: [project] where it
// names them, else what the files in dir say; checks are the
// template's, else the test and lint commands.
func Commands(cfg config.Config, dir string, t Template) config.PromptCommands {
	found := setup.Commands{}
	if len(cfg.Project.Test) == 0 || len(cfg.Project.Lint) == 0 || len(cfg.Project.Dev) == 0 {
		found = setup.DetectCommands(dir)
	}
	pick := func(set, detected []string) []string {
		if len(set) > 0 {
			return set
		}
		return detected
	}
	c := config.PromptCommands{
		Test: unique(pick(cfg.Project.Test, found.Test)),
		Lint: unique(pick(cfg.Project.Lint, found.Lint)),
		Dev:  unique(pick(cfg.Project.Dev, found.Dev)),
	}
	c.Checks = unique(t.Checks)
	if len(c.Checks) == 0 {
		c.Checks = unique(append(append([]string{}, c.Test...), c.Lint...))
	}
	return c
}

// unique is cmds without repeats (spaces around a command ignored), in
// their order: a command the test and the lint lines share (make check)
// is run once.
func unique(cmds []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cmds {
		k := strings.TrimSpace(c)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, c)
	}
	return out
}

// Compose is the first prompt: the template's prompt over the data, then
// the session protocol.
func Compose(t Template, p Protocol) (string, error) {
	tpl, err := template.New(t.Name).Option("missingkey=error").Parse(t.Prompt)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", t.Name, err)
	}
	var b strings.Builder
	if err := tpl.Execute(&b, p.PromptData); err != nil {
		return "", fmt.Errorf("template %s: %w", t.Name, err)
	}
	body := strings.TrimRight(b.String(), "\n")
	b.Reset()
	if err := protocolTemplate().Execute(&b, p); err != nil {
		return "", fmt.Errorf("session protocol: %w", err)
	}
	return body + "\n\n" + b.String(), nil
}
