package lifecycle

import (
	"errors"
	"fmt"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/facts"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/templates"
	"github.com/owt-tmux/owt/internal/text"
	"github.com/owt-tmux/owt/internal/workspace"
)

// chosenTemplate is the template of one create, and whether owt guessed it.
type chosenTemplate struct {
	templates.Template
	Guessed bool
}

// none says no template shapes the prompt: the task is sent as it is.
func (c chosenTemplate) none() bool { return c.Name == "" }

// said is the line owt new prints about the template.
func (c chosenTemplate) said() string {
	if c.Guessed {
		return "template " + c.Name + ", guessed from the task's words (--template NAME picks one, --template none sends the task as it is)"
	}
	return "template " + c.Name
}

// chooseTemplate is o's template: named, guessed from the task (Auto),
// or none ("" or None, and always without an agent). A named template's
// defaults fill the options not given; a guessed one only shapes the
// prompt, so a task's words never change the tool, base or plan mode.
func (w *Worktrees) chooseTemplate(o *CreateOptions, task string) (chosenTemplate, error) {
	switch {
	case o.NoAgent || o.Template == "" || o.Template == templates.None:
		return chosenTemplate{}, nil
	case o.Template == templates.Auto:
		t, err := templates.Find(w.Config, w.Repo.Root, templates.Guess(task))
		return chosenTemplate{t, true}, err
	}
	t, err := templates.Find(w.Config, w.Repo.Root, o.Template)
	if err != nil {
		return chosenTemplate{}, badOption(err)
	}
	if o.Tool == "" {
		o.Tool = t.Tool
	}
	if o.Base == "" && o.StartAt == "" {
		o.Base = t.Base
	}
	return chosenTemplate{t, false}, nil
}

// composePrompt is the first prompt of rec with template t: the project's
// commands read off its worktree, its peers off the records.
func (w *Worktrees) composePrompt(t chosenTemplate, rec *state.Record, dir string, peers []*state.Record, inRun bool) (string, error) {
	data := templates.Protocol{InRun: inRun, PromptData: config.PromptData{
		Task: rec.Task, Template: t.Name, Branch: rec.Branch, Base: rec.Base,
		Commands: templates.Commands(w.Config, dir, t.Template),
	}}
	for _, p := range peers {
		if p.Name == rec.Name || p.NoAgent {
			continue
		}
		if len(data.Peers) == maxPeers {
			break
		}
		data.Peers = append(data.Peers, config.PromptPeer{Name: p.Name, Branch: p.Branch, Task: text.From(p.Task).Short(100)})
	}
	return templates.Compose(t.Template, data)
}

// maxPeers bounds the peers a first prompt names.
const maxPeers = 10

// saveFirstPrompt composes rec's first prompt and records it (with the
// template's name) before the session starts, which reads it.
func (w *Worktrees) saveFirstPrompt(t chosenTemplate, rec *state.Record, inRun bool) error {
	return w.Store.Update(func(f *state.File) error {
		r, ok := f.Records[rec.Name]
		if !ok {
			return fmt.Errorf("record %s vanished while it was being created", rec.Name)
		}
		prompt, err := w.composePrompt(t, r, r.Path, f.Sorted(), inRun)
		if err != nil {
			return err
		}
		r.Template, r.Prompt = t.Name, prompt
		*rec = *r
		return nil
	})
}

// Preview is what owt new --dry-run shows: what the agent would get.
type Preview struct {
	Name, Branch, Base, Tool string
	Plan                     bool
	Template                 string // "" for none
	Guessed                  bool
	Prompt                   string
	Facts                    []memory.Item
	FactsBlock               string
	FactsNote                string // why there are no facts, when not simply none
}

// Preview works out what Create would start the agent with, changing
// nothing: the commands are read off the checkout owt runs in, the name
// and branch are the task's before any suffix a clash would add.
func (w *Worktrees) Preview(o CreateOptions) (Preview, error) {
	if o.Issue > 0 {
		if err := w.fromIssue(&o); err != nil {
			return Preview{}, err
		}
	}
	task := o.Task
	if o.NoAgent {
		return Preview{}, badOption(errors.New("--dry-run shows an agent's first prompt; there is none with --no-agent"))
	}
	if task == "" {
		return Preview{}, ErrEmptyTask
	}
	t, err := w.chooseTemplate(&o, task)
	if err != nil {
		return Preview{}, err
	}
	base, err := w.defaultBase(o)
	if err != nil {
		return Preview{}, err
	}
	name, branch := workspace.DeriveName(task)
	if o.Name != "" {
		name, branch = o.Name, namedBranch(o.Name, task)
	}
	if o.Branch != "" {
		branch = o.Branch
	}
	tool := o.Tool
	if tool == "" {
		tool = w.Config.Agent.Tool
	}
	plan := o.Plan || (!t.Guessed && t.Plan)
	if prof, err := agent.Resolve(w.Tools, tool); err == nil {
		tool, plan = prof.Name, plan && prof.Plan != nil
	}
	p := Preview{Name: name, Branch: branch, Base: base, Tool: tool, Template: t.Name, Guessed: t.Guessed, Plan: plan, Prompt: task}
	rec := &state.Record{Name: name, Task: task, Branch: branch, Base: base}
	if !t.none() {
		f, err := w.Store.Peek()
		if err != nil {
			return Preview{}, err
		}
		if p.Prompt, err = w.composePrompt(t, rec, w.Repo.Root, f.Sorted(), o.InRun); err != nil {
			return Preview{}, err
		}
	}
	switch {
	case w.Config.Memory.InjectTokens <= 0:
		p.FactsNote = "memory injection is off ([memory] inject_tokens = 0)"
	case !facts.Exists(w.Repo.Root):
		p.FactsNote = "this repository has no memory yet (owt memory add)"
	default:
		db, err := memory.Open(w.Repo.Root)
		if err != nil {
			p.FactsNote = fmt.Sprintf("memory: %v; the agent would start without facts", err)
			break
		}
		defer db.Close()
		if p.Facts, p.FactsBlock, err = facts.ForTask(db, task, w.Config.Memory.InjectTokens); err != nil {
			p.FactsNote = fmt.Sprintf("memory: %v; the agent would start without facts", err)
		}
	}
	return p, nil
}
