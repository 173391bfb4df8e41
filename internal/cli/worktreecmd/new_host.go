package worktreecmd

import (
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
	}
	return nil
}

// newOnHost starts the agent on o.Host: the host's owt does the create
// in its clone, from this repository's base commit.
func newOnHost(o *newOptions) error {
	switch {
	case o.DryRun:
		return cmdutil.Usagef("--dry-run with --host is not supported yet")
	case o.Switch:
		return cmdutil.Usagef("--switch with --host is not supported yet: attach with ssh -t HOST tmux attach -t SESSION")
	case o.Create.InPlace:
		return cmdutil.Usagef("--in-place with --host: an agent on a host works in a worktree of its clone there")
	case o.Create.Issue != 0:
		return cmdutil.Usagef("--issue with --host is not supported yet")
	case strings.TrimSpace(o.Create.Task) == "" && !o.Create.NoAgent:
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
	item, err := h.NewAgent(ctx, w.Repo, hosts.NewSpec{Task: c.Task, Name: c.Name, Branch: c.Branch, Base: c.Base,
		Tool: c.Tool, Template: c.Template, NoAgent: c.NoAgent, Plan: c.Plan, NoSetup: c.NoSetup})
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
		return cmdutil.PrintJSON(o.IO.Out, item)
	}
	tool := item.Tool
	if tool == "" {
		tool = "shell"
	}
	fmt.Fprintf(o.IO.Out, "%s: %s on %s in %s on host %s (tmux session %s there)\n", item.Name, tool, item.Branch, item.Path, item.Host, item.Session)
	return nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimPrefix(s, "owt: ")
}
