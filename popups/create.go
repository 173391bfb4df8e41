package popups

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/huh"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/templates"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// OptCreateSwitch says whether Alt+c moves the client to the new session
// (on, the default) or stays (off).
const OptCreateSwitch = "@owt-create-switch"

// toolListHeight keeps the form within a popup on a small terminal; the
// tool list scrolls.
const toolListHeight = 7

// noAgent is the tool choice for a plain shell.
const noAgent = "\x00shell"

// Create is the Alt+c popup: a form for the task (several lines allowed),
// the tool (installed ones first, the configured default preselected), the
// task template (guessed from the task unless one is chosen), the base
// branch (default: the branch the user works on, never an agent's: see
// baseDefault) and plan
// mode. A tool that is not installed is marked, and refused before
// submitting, so the typed task is kept. Submitting creates the worktree, session and agent, showing
// the steps as they happen, then moves the client to the new session
// unless @owt-create-switch is off. Errors stay on screen until a key.
func Create(tm *tmux.Client, s Screen) error {
	useFormTheme(themeOf(tm, s))
	return finish(s, create(tm, s))
}

func create(tm *tmux.Client, s Screen) error {
	h, dir := here(tm)
	w, err := openWorkspace(dir, tm)
	if err != nil {
		return fmt.Errorf("%w (open Alt+c from a pane inside a git repository)", err)
	}
	var (
		task  string
		tool  = defaultTool(w)
		base  string
		plan  bool
		tpl   = defaultTemplate()
		where string // "" here, else a host's name
	)
	choice := baseDefault(w, dir)
	base = choice.Base
	baseAbout, suggest := choice.about(), choice.suggest()
	fields := []huh.Field{
		huh.NewText().Title("Task").
			Description("What should the agent do? (alt+enter or ctrl+j: new line)").
			Lines(3).Value(&task).
			Validate(func(v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("say what the agent should do")
				}
				return nil
			}),
	}
	// Where: only once hosts are configured (owt host add).
	if opts := hostOptions(w); len(opts) > 1 {
		fields = append(fields, huh.NewSelect[string]().Title("Where").Description("This machine, or a host over ssh").
			Options(opts...).Value(&where))
	}
	err = runForm(huh.NewGroup(append(fields,
		huh.NewSelect[string]().Title("Tool").Options(toolOptions(w)...).Height(toolListHeight).Value(&tool).
			Validate(func(t string) error {
				if where != "" {
					return nil // the host's owt says whether it is installed there
				}
				return toolInstalled(w, t)
			}),
		huh.NewSelect[string]().Title("Template").Description("How the first prompt is shaped (owt templates)").
			Options(templateOptions(w)...).Height(toolListHeight).Value(&tpl),
		huh.NewInput().Title("Base branch").Description(baseAbout).Suggestions(suggest).Value(&base).
			Validate(func(v string) error {
				if strings.TrimSpace(v) == "" {
					return errors.New("name the branch to start from")
				}
				return nil
			}),
		huh.NewConfirm().Title("Plan mode?").Description("Start the tool in its plan / read-only mode").
			Affirmative("Yes").Negative("No").Value(&plan),
	)...).Title("New agent in " + w.Repo.Name()))
	if err != nil {
		return err
	}
	if where != "" {
		return createOnHost(tm, s, w, h.SessionID, where, hosts.NewSpec{Task: task, Base: strings.TrimSpace(base), Plan: plan && tool != noAgent,
			Tool: tool, NoAgent: tool == noAgent, Template: tpl})
	}

	fmt.Fprintf(s.Out, "Creating a worktree for %q…\n", firstLine(strings.TrimSpace(task)))
	w.Log = s.Out
	opts := lifecycle.CreateOptions{Task: task, Base: strings.TrimSpace(base), Plan: plan, From: dir, Template: tpl}
	if tool == noAgent {
		opts.NoAgent = true
		opts.Plan = false
	} else {
		opts.Tool = tool
	}
	rec, err := lifecycle.Of(w).Create(opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "%s: %s on %s (session %s)\n", rec.Name, toolName(rec.Tool, rec.NoAgent), rec.Branch, rec.Session)
	if v, _ := tm.ShowOption("", OptCreateSwitch); strings.EqualFold(strings.TrimSpace(v), "off") {
		_ = tm.DisplayMessage(h.Client, fmt.Sprintf("owt: started %s in session %s", rec.Name, rec.Session))
		return nil
	}
	if err := tm.SwitchClientOf(h.Client, rec.SessionID); err != nil {
		return fmt.Errorf("created %s, but could not switch to it: %w", rec.Name, err)
	}
	return nil
}

func toolName(tool string, noAgent bool) string {
	if noAgent || tool == "" {
		return "shell"
	}
	return tool
}

// baseChoice is the base branch the form starts on, what it is, and the
// agents whose own branch the form offers, labelled, never as the
// default: basing on one makes the new agent merge into its work.
type baseChoice struct {
	Base   string
	Why    string // what Base is, "" for the branch checked out where the popup opened
	Agents []*state.Record
}

// baseDefault is the branch the user works on: in an agent's worktree,
// the main checkout's branch, not the agent's own; in a checkout held by
// an in-place agent (the main one, or one the popup opened in), the
// branch it was on before the agent took it (the agent's recorded base),
// else the repository's default branch. Elsewhere (the main checkout, a
// worktree of the user's own) it is the branch checked out there. Base is
// "" when that checkout's HEAD is detached: the user types one.
func baseDefault(w *workspace.Workspace, dir string) baseChoice {
	resolved := dir
	if p, err := filepath.EvalSymlinks(dir); err == nil {
		resolved = p
	}
	in := func(p string) bool { return p != "" && (within(dir, p) || within(resolved, p)) }
	recs, _ := w.Records()
	// heldBy is the in-place agent working in the checkout at path.
	heldBy := func(path string) *state.Record {
		for _, r := range recs {
			if r.InPlace && r.Path != "" && sameDir(r.Path, path) {
				return r
			}
		}
		return nil
	}
	var own *state.Record
	for _, r := range recs {
		if !r.InPlace && in(r.Path) {
			own = r
		}
	}
	var c baseChoice
	checkout := w.Repo.Root // the checkout whose branch is the user's
	if own != nil {
		c.Agents = append(c.Agents, own)
		c.Why = "your checkout's branch"
	} else if top, err := git.TopLevel(dir); err == nil {
		checkout = top
	} else {
		checkout = dir
	}
	held := heldBy(checkout)
	if held == nil {
		c.Base, _ = git.CurrentBranch(checkout)
		return c
	}
	c.Agents = append(c.Agents, held)
	switch {
	case held.Base != "" && held.Base != held.Branch && w.Repo.BranchExists(held.Base):
		c.Base = held.Base
		c.Why = fmt.Sprintf("your branch before %s worked in place", held.Name)
	default:
		c.Base = w.Repo.DefaultBranch()
		c.Why = fmt.Sprintf("the default branch (%s works in place)", held.Name)
	}
	return c
}

// about is the base field's description: plain, or, when agents' own
// branches are offered, what the default is and how to build on one of
// theirs on purpose.
func (c baseChoice) about() string {
	if len(c.Agents) == 0 {
		return "The branch to start from and merge back into"
	}
	var names, branches []string
	for _, r := range c.Agents {
		names, branches = append(names, r.Name), append(branches, r.Branch)
	}
	return fmt.Sprintf("Default: %s, %s. To build on agent %s's own branch on purpose, type %s (the new agent then merges into it, not into %s)",
		orNone(c.Base), c.Why, strings.Join(names, "'s or "), strings.Join(branches, " or "), orNone(c.Base))
}

// suggest is the agents' branches, offered as the field's suggestions.
func (c baseChoice) suggest() []string {
	var out []string
	for _, r := range c.Agents {
		out = append(out, r.Branch)
	}
	return out
}

// sameDir reports whether a and b are the same folder (symlinks resolved).
func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// within reports whether path is dir or below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func orNone(branch string) string {
	if branch == "" {
		return "none (HEAD is detached)"
	}
	return branch
}

// toolInstalled refuses, in the form and before anything is made, a tool
// whose program is not on PATH: the typed task stays in the form.
func toolInstalled(w *workspace.Workspace, tool string) error {
	if tool == noAgent {
		return nil
	}
	p, ok := w.Tools[tool]
	if !ok {
		return fmt.Errorf("unknown tool %q", tool)
	}
	if _, ok := p.LookPath(); ok {
		return nil
	}
	msg := tool + " is not installed"
	if p.InstallHint != "" {
		msg += " (" + p.InstallHint + ")"
	}
	return errors.New(msg + ": choose an installed one")
}

// defaultTool is the configured tool, or the first installed one.
func defaultTool(w *workspace.Workspace) string {
	if p, err := agent.Resolve(w.Tools, w.Config.Agent.Tool); err == nil {
		return p.Name
	}
	return noAgent
}

// toolOptions lists installed tools first, then the others (choosing one
// of those fails with its install hint), then a plain shell.
func toolOptions(w *workspace.Workspace) []huh.Option[string] {
	var installed, missing []huh.Option[string]
	for _, name := range agent.Order(w.Tools) {
		if _, ok := w.Tools[name].LookPath(); ok {
			installed = append(installed, huh.NewOption(name, name))
		} else {
			missing = append(missing, huh.NewOption(name+" (not installed)", name))
		}
	}
	opts := append(installed, missing...)
	return append(opts, huh.NewOption("none: a shell, no agent", noAgent))
}

// defaultTemplate is the template the form starts on: $OWT_TEMPLATE as
// for owt new, else a guess from the task.
func defaultTemplate() string {
	if v := strings.TrimSpace(os.Getenv("OWT_TEMPLATE")); v != "" {
		return v
	}
	return templates.Auto
}

// templateOptions are auto, none and every template with what it asks.
func templateOptions(w *workspace.Workspace) []huh.Option[string] {
	opts := []huh.Option[string]{
		huh.NewOption("auto: guessed from the task's words", templates.Auto),
		huh.NewOption("none: the task as typed", templates.None),
	}
	all, err := templates.All(w.Config, w.Repo.Root)
	if err != nil {
		return opts // owt new says what is wrong with the config
	}
	for _, t := range all {
		opts = append(opts, huh.NewOption(t.Name+": "+t.About, t.Name))
	}
	return opts
}

// hostOptions are "here" and each configured host that has, or can
// search for, a clone of the repository; only "here" without hosts.
func hostOptions(w *workspace.Workspace) []huh.Option[string] {
	opts := []huh.Option[string]{huh.NewOption("here: this machine", "")}
	cfg, err := config.Load(w.Repo.Root)
	if err != nil {
		return opts
	}
	all, err := hosts.All(cfg)
	if err != nil {
		return opts
	}
	for _, h := range all {
		if _, ok := h.Clone(w.Repo.Root); ok || len(h.Config.Search) > 0 {
			opts = append(opts, huh.NewOption(h.Name+": "+h.Config.Address, h.Name))
		}
	}
	return opts
}

// createOnHost starts the agent on the host (as owt new --host), then
// opens a window attached to it unless @owt-create-switch is off.
func createOnHost(tm *tmux.Client, s Screen, w *workspace.Workspace, session, name string, spec hosts.NewSpec) error {
	if spec.NoAgent {
		spec.Tool = ""
	}
	cfg, err := config.Load(w.Repo.Root)
	if err != nil {
		return err
	}
	h, err := hosts.Open(cfg, name)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "Starting an agent on %s for %q…\n", name, firstLine(strings.TrimSpace(spec.Task)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	it, err := h.NewAgent(ctx, w.Repo, spec)
	if err != nil {
		return err
	}
	if w.Self != "" {
		_ = daemon.EnsureRunning(w.Self, tm) // the bar follows the host
	}
	fmt.Fprintf(s.Out, "%s@%s: %s on %s (session %s there)\n", it.Name, it.Host, toolName(it.Tool, spec.NoAgent), it.Branch, it.Session)
	if v, _ := tm.ShowOption("", OptCreateSwitch); strings.EqualFold(strings.TrimSpace(v), "off") {
		return nil
	}
	return attachOnHost(tm, session, it)
}
