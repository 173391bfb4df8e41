package lifecycle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/memory"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/templates"
	"github.com/owt-tmux/owt/internal/workspace"
)

// chooseTemplate is o's template: named, guessed from the task (Auto),
// or none ("" or None, and always without an agent). A named template's
// defaults fill the options not given; a guessed one only shapes the
// prompt, so a task's words never change the tool, base or plan mode.
func (w *Worktrees) chooseTemplate(o *CreateOptions, task string) (templates.Chosen, error) {
	if o.NoAgent {
		return templates.Chosen{}, nil
	}
	t, err := templates.Choose(w.Config, w.Repo.Root, o.Template, task)
	if err != nil {
		return t, badOption(err)
	}
	if t.None() || t.Guessed {
		return t, nil
	}
	if o.Tool == "" {
		o.Tool = t.Tool
	}
	if o.Base == "" && o.StartAt == "" {
		o.Base = t.Base
	}
	return t, nil
}

// saveFirstPrompt composes rec's first prompt and records it (with the
// template's name) before the session starts, which reads it.
func (w *Worktrees) saveFirstPrompt(t templates.Chosen, rec *state.Record, inRun bool) error {
	return w.Store.Update(func(f *state.File) error {
		r, ok := f.Records[rec.Name]
		if !ok {
			return fmt.Errorf("record %s vanished while it was being created", rec.Name)
		}
		prompt, err := templates.FirstPrompt(w.Config, t, r, r.Path, f.Sorted(), inRun)
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
	Facts                    []memory.Fact
	FactsBlock               string
	FactsNote                string // why there are no facts, when not simply none
	// ToolProblem is why owt new would refuse the tool (not installed,
	// unknown), "" when it would start it: the dry run still shows the
	// prompt, and says this.
	ToolProblem string
}

// Preview works out what Create would start the agent with, changing
// nothing: the commands are read off the checkout owt runs in, the name
// and branch are the task's before any suffix a clash would add. It
// makes Create's checks of the request (in place: a clean checkout on a
// branch, one agent in it, a base that writes over no file of the
// user's; a valid name, branch and base), so a dry run never succeeds
// where owt new would be refused, with the same words. It does not ask
// for tmux or an installed tool: a prompt can be read without them.
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
	if err := checkInPlaceStart(o); err != nil {
		return Preview{}, err
	}
	checkout := ""
	if o.InPlace {
		if checkout, err = w.inPlaceCheckout(o); err != nil {
			return Preview{}, err
		}
	}
	if err := w.checkNames(o); err != nil {
		return Preview{}, err
	}
	base, err := w.defaultBase(o)
	if err != nil {
		return Preview{}, err
	}
	if o.Base != "" && o.StartAt == "" {
		if _, err := w.checkBase(base); err != nil {
			return Preview{}, badOption(err)
		}
	}
	f, err := w.Store.Peek()
	if err != nil {
		return Preview{}, err
	}
	if checkout != "" {
		if err := oneInPlace(f, checkout); err != nil {
			return Preview{}, err
		}
		if err := checkInPlaceBase(checkout, git.BranchRef(base), base); err != nil {
			return Preview{}, err
		}
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
	problem := ""
	if prof, err := agent.Resolve(w.Tools, tool); err == nil {
		tool, plan = prof.Name, plan && prof.Plan != nil
	} else {
		problem = err.Error()
	}
	p := Preview{Name: name, Branch: branch, Base: base, Tool: tool, Template: t.Name, Guessed: t.Guessed, Plan: plan, Prompt: task, ToolProblem: problem}
	rec := &state.Record{Name: name, Task: task, Branch: branch, Base: base, InPlace: checkout != "", Path: checkout}
	if !t.None() {
		if p.Prompt, err = templates.FirstPrompt(w.Config, t, rec, w.Repo.Root, f.Sorted(), o.InRun); err != nil {
			return Preview{}, err
		}
	}
	w.previewFacts(&p, checkout != "", task)
	return p, nil
}

// previewFacts says in p which facts of the repository's memory the agent
// would be given for task, or why none.
func (w *Worktrees) previewFacts(p *Preview, inPlace bool, task string) {
	switch {
	case inPlace:
		p.FactsNote = "no facts are injected: " + inPlaceFactsWhy
	case w.Config.Memory.InjectTokens <= 0:
		p.FactsNote = "memory injection is off ([memory] inject_tokens = 0)"
	case !memory.Exists(w.Repo.Root):
		p.FactsNote = "this repository has no memory yet (owt memory add)"
	default:
		inj := memory.Inject(w.Self, w.Repo.Root, "", task, p.Tool, true)
		if inj.Failed {
			p.FactsNote = strings.Replace(inj.Line, "the agent starts", "the agent would start", 1)
			break
		}
		p.Facts, p.FactsBlock = inj.Facts, inj.Block
	}
}
