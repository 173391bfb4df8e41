package worktreecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/ssh"
	"github.com/owt-tmux/owt/internal/state"
)

// newHostTimeout bounds an owt new on a host: the push of the base
// commit, and the remote owt's create (setup installs included).
const newHostTimeout = 10 * time.Minute

// readSpec replaces the options of an owt new with the JSON on stdin
// (hosts.NewSpec): every field the user chose, none on a command line.
func readSpec(o *newOptions) error {
	if o.Host != "" || strings.TrimSpace(o.Create.Task) != "" || o.Create.Name != "" {
		return cmdutil.Usagef("--spec-stdin takes everything from stdin: give no task, --name or --host with it")
	}
	b, err := io.ReadAll(io.LimitReader(o.IO.In, 1<<20))
	if err != nil {
		return err
	}
	var spec hosts.NewSpec
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return cmdutil.Usagef("--spec-stdin: %v", err)
	}
	o.Create = lifecycle.CreateOptions{
		Task: spec.Task, Name: spec.Name, Branch: spec.Branch, Base: spec.Base, StartAt: spec.StartAt,
		Tool: spec.Tool, Template: spec.Template, NoAgent: spec.NoAgent, Plan: spec.Plan, NoSetup: spec.NoSetup,
		ReadIssue: spec.Issue, MaxAgents: spec.MaxAgents,
	}
	return nil
}

// newOnHost starts the agent on o.Host: the host's owt does the create
// in its clone, from this repository's base commit.
func newOnHost(o *newOptions) error {
	switch {
	case o.Create.InPlace:
		return cmdutil.Usagef("--in-place with --host: an agent on a host works in a worktree of its clone there, never in a checkout of yours")
	case o.Create.Issue < 0:
		return cmdutil.UsageError{Msg: fmt.Sprintf("--issue %d: an issue number is 1 or more", o.Create.Issue)}
	case o.Create.Issue > 0 && strings.TrimSpace(o.Create.Task) != "":
		return cmdutil.UsageError{Msg: fmt.Sprintf("--issue %d is the task: give no task text with it", o.Create.Issue)}
	case o.DryRun && o.Switch:
		return cmdutil.Usagef("--dry-run creates nothing to switch to: give one of --dry-run and --switch")
	case strings.TrimSpace(o.Create.Task) == "" && !o.Create.NoAgent && o.Create.Issue == 0:
		return cmdutil.UsageError{Msg: lifecycle.ErrEmptyTask.Error()}
	}
	if o.Create.Name != "" {
		if err := state.ValidateName(o.Create.Name); err != nil {
			return cmdutil.UsageError{Msg: err.Error()}
		}
	}
	cfg, root, err := cmdutil.LoadConfig()
	if err != nil {
		return cmdutil.ConfigProblem(root, err)
	}
	h, err := hosts.Open(cfg, o.Host)
	if errors.Is(err, hosts.ErrUnknown) {
		return cmdutil.UsageError{Msg: "--host: " + err.Error()}
	}
	if err != nil {
		return err
	}
	w, err := o.Workspace()
	if err != nil {
		return err
	}
	if _, ok := h.Clone(w.Repo.Root); !ok && len(h.Config.Search) == 0 {
		return cmdutil.UsageError{Msg: fmt.Sprintf("--host %s: it has no clone of %s: add repos = { %q = \"/path/there\" } (or search = [\"~/src\"]) to [hosts.%s] in %s",
			o.Host, w.Repo.Root, w.Repo.Root, o.Host, config.UserFile())}
	}
	ctx, cancel := context.WithTimeout(context.Background(), newHostTimeout)
	defer cancel()
	c := o.Create
	if c.Issue > 0 {
		// The issue is read here, through this machine's gh; its text
		// goes to the host as the task, on stdin.
		if err := lifecycle.Of(w).FromIssue(&c); err != nil {
			return createError(err)
		}
		if c.Name != "" {
			if err := state.ValidateName(c.Name); err != nil {
				return cmdutil.UsageError{Msg: err.Error()}
			}
		}
	}
	spec := hosts.NewSpec{Task: c.Task, Name: c.Name, Branch: c.Branch, Base: c.Base,
		Tool: c.Tool, Template: c.Template, NoAgent: c.NoAgent, Plan: c.Plan, NoSetup: c.NoSetup, Issue: c.ReadIssue}
	if o.DryRun {
		return previewOnHost(ctx, o, w.Repo, h, spec)
	}
	item, err := h.NewAgent(ctx, w.Repo, spec)
	var ee *ssh.ExitError
	if errors.As(err, &ee) && ee.Code == cmdutil.ExitUsage {
		return cmdutil.UsageError{Msg: fmt.Sprintf("on %s: %s", o.Host, lastLine(ee.Stderr))}
	}
	if err != nil {
		return err
	}
	if h.BaseBehind != "" {
		fmt.Fprintf(o.IO.ErrOut, "owt: note: %s\n", h.BaseBehind)
	}
	// The local status bar follows the host through this server's monitor.
	if w.Tmux.Running() && w.Self != "" {
		if err := daemon.EnsureRunning(w.Self, w.Tmux); err != nil {
			fmt.Fprintf(o.IO.ErrOut, "owt: status monitor not started: %v\n", err)
		}
	}
	if o.JSON {
		if err := cmdutil.PrintJSON(o.IO.Out, item); err != nil {
			return err
		}
	} else {
		tool := item.Tool
		if tool == "" {
			tool = "shell"
		}
		fmt.Fprintf(o.IO.Out, "%s: %s on %s in %s on host %s (tmux session %s there)\n", item.Name, tool, item.Branch, item.Path, item.Host, item.Session)
	}
	if o.Switch {
		// As Alt+s does for an agent on a host: a window attached over ssh.
		return attachOnHost(o.IO.Out, w.Tmux, h, item.Name, item.Session)
	}
	return nil
}

// hostPreview is owt new --host --dry-run --json: where the agent would
// run, the base commit that would be sent there, and the host owt's own
// preview (its first prompt and memory).
type hostPreview struct {
	Host       string          `json:"host"`
	Clone      string          `json:"clone"`
	Base       string          `json:"base"`
	BaseCommit string          `json:"base_commit"`
	Preview    json.RawMessage `json:"preview"`
}

// previewOnHost is owt new --host --dry-run: what it would do, changing
// nothing here or there: no base commit sent, no clone looked for and
// remembered, nothing made. The host's owt previews the agent's start
// in its clone, from the spec on its stdin.
func previewOnHost(ctx context.Context, o *newOptions, repo git.Repo, h *hosts.Host, spec hosts.NewSpec) error {
	clone, ok := h.Clone(repo.Root)
	if !ok {
		return cmdutil.UsageError{Msg: fmt.Sprintf("--host %s --dry-run: its clone of %s is not known yet (owt new --host %s finds it under search, or name it in [hosts.%s] repos)", h.Name, repo.Root, h.Name, h.Name)}
	}
	base := spec.Base
	if base == "" {
		if base = repo.HeadBranch; base == "" {
			return cmdutil.Usagef("HEAD is detached here: pass --base BRANCH")
		}
	}
	commit, err := repo.ResolveCommit(git.BranchRef(base))
	if err != nil || !repo.BranchExists(base) {
		return cmdutil.UsageError{Msg: fmt.Sprintf("unknown base %q: no such local branch", base)}
	}
	spec.Base = base
	out, err := h.PreviewAgent(ctx, clone, spec)
	var ee *ssh.ExitError
	if errors.As(err, &ee) && ee.Code == cmdutil.ExitUsage {
		return cmdutil.UsageError{Msg: fmt.Sprintf("on %s: %s", h.Name, lastLine(ee.Stderr))}
	}
	if err != nil {
		return err
	}
	var p previewJSON
	if err := json.Unmarshal(bytes.TrimSpace(out), &p); err != nil {
		return fmt.Errorf("owt new --dry-run on %s: %w (is owt there the same version? owt host check %s)", h.Name, err, h.Name)
	}
	if o.JSON {
		return cmdutil.PrintJSON(o.IO.Out, hostPreview{Host: h.Name, Clone: clone, Base: base, BaseCommit: commit, Preview: bytes.TrimSpace(out)})
	}
	p.Base = base // the host's base branch may lag: the agent starts at this one's commit
	printPreviewText(o.IO.Out, p, fmt.Sprintf("owt new --host %s --dry-run: nothing was created or sent, here or on %s.\nwould send %s (%.12s) to %s:%s (%s, no branch moved), then start there:\n",
		h.Name, h.Name, base, commit, h.Name, clone, hosts.BaseRef(commit)))
	return nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimPrefix(s, "owt: ")
}
