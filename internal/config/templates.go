package config

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"text/template"
)

// Project names the project's own commands, each a shell line for the
// agent to run; an empty list is detected from the worktree's files.
type Project struct {
	Test []string `toml:"test"`
	Lint []string `toml:"lint"`
	Dev  []string `toml:"dev"`
}

// Template is a task template of [templates.NAME]: a user's own, or
// defaults over a built-in one of the same name.
type Template struct {
	// Prompt is a text/template over PromptData: the task part of the
	// first prompt (the session protocol follows it).
	Prompt string `toml:"prompt,omitempty"`
	// Plan starts the tool in its plan mode; unset keeps the built-in's.
	Plan *bool `toml:"plan,omitempty"`
	// Tool and Base are the defaults of --tool and --base.
	Tool string `toml:"tool,omitempty"`
	Base string `toml:"base,omitempty"`
	// Checks are the commands the verify step names, in place of the
	// project's test and lint commands.
	Checks []string `toml:"checks,omitempty"`
}

// PromptData is what a template's prompt is given.
type PromptData struct {
	Task     string         // the user's task, as typed (or the text)
	Template string         // the template's name
	Branch   string         // the agent's branch
	Base     string         // the branch it merges into
	Commands PromptCommands // the project's commands
	Peers    []PromptPeer   // the other agents of the repository
}

// PromptCommands are the project's commands, each a shell line.
type PromptCommands struct {
	Test, Lint, Dev []string
	// Checks are what the verify step runs: the template's checks, else
	// Test and Lint.
	Checks []string
}

// PromptPeer is another agent working in the repository.
type PromptPeer struct {
	Name, Branch, Task string
}

// samplePromptData is what a template is tried on when the config loads,
// so a template that names an unknown field fails there.
var samplePromptData = PromptData{
	Task: "task", Template: "name", Branch: "feat/task", Base: "main",
	Commands: PromptCommands{Test: []string{"make test"}, Lint: []string{"make lint"}, Dev: []string{"make dev"}, Checks: []string{"make test"}},
	Peers:    []PromptPeer{{Name: "peer", Branch: "feat/peer", Task: "other task"}},
}

// reservedTemplates are the words a template may not be called: "none" sends
// the bare task, "auto" guesses.
var reservedTemplates = []string{"none", "auto"}

// templateName is compiled when a config has templates: every owt
// process loads the config, the hook's too.
var templateName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`) })

// validateTemplates checks [project] and [templates.NAME].
func validateTemplates(cfg Config) Problems {
	var ps Problems
	for _, kl := range []struct {
		key  string
		list []string
	}{{"project.test", cfg.Project.Test}, {"project.lint", cfg.Project.Lint}, {"project.dev", cfg.Project.Dev}} {
		key := kl.key
		for i, c := range kl.list {
			if c == "" {
				ps = append(ps, Problem{Key: key, Msg: fmt.Sprintf("command %d is empty", i+1)})
			}
		}
	}
	names := make([]string, 0, len(cfg.Templates))
	for n := range cfg.Templates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t, key := cfg.Templates[n], "templates."+n
		if !templateName().MatchString(n) || contains(reservedTemplates, n) {
			ps = append(ps, Problem{Key: "templates." + strconv.Quote(n), Msg: "a template's name is lower-case letters, digits, - and _ (and not none or auto)"})
			continue
		}
		if t.Prompt == "" {
			continue // defaults over a built-in; the name is checked when used
		}
		if tpl, err := template.New(n).Option("missingkey=error").Parse(t.Prompt); err != nil {
			ps = append(ps, Problem{Key: key + ".prompt", Msg: "not a template: " + err.Error()})
		} else if err := tpl.Execute(io.Discard, samplePromptData); err != nil {
			ps = append(ps, Problem{Key: key + ".prompt", Msg: "the template fails: " + err.Error() + " (it has .Task, .Template, .Branch, .Base, .Commands, .Peers)"})
		} else {
			// Tried without peers and without commands as well: a
			// template that only works with them fails on owt new in
			// a repository with no other agents, or none detected.
			for _, v := range []struct {
				when string
				data PromptData
			}{
				{"with no other agents", withoutPeers(samplePromptData)},
				{"with no test, lint or dev commands", withoutCommands(samplePromptData)},
			} {
				if err := tpl.Execute(io.Discard, v.data); err != nil {
					ps = append(ps, Problem{Key: key + ".prompt", Msg: "the template fails " + v.when + ": " + err.Error() +
						" (.Peers and .Commands lists may be empty: use {{range}} or {{if}})"})
					break
				}
			}
		}
	}
	return ps
}

func withoutPeers(d PromptData) PromptData {
	d.Peers = nil
	return d
}

func withoutCommands(d PromptData) PromptData {
	d.Commands = PromptCommands{}
	return d
}
