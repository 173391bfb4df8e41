package popups

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/huh"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
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
// branch (default: the branch checked out where the popup opened) and
// plan mode. Submitting creates the worktree, session and agent, showing
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
	base, _ = git.CurrentBranch(dir)
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
		huh.NewSelect[string]().Title("Tool").Options(toolOptions(w)...).Height(toolListHeight).Value(&tool),
		huh.NewSelect[string]().Title("Template").Description("How the first prompt is shaped (owt templates)").
			Options(templateOptions(w)...).Height(toolListHeight).Value(&tpl),
		huh.NewInput().Title("Base branch").Value(&base).
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
