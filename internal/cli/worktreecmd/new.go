package worktreecmd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"

	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/templates"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// newOptions is one owt new as typed.
type newOptions struct {
	IO        *cmdutil.IOStreams
	Workspace func() (*workspace.Workspace, error)
	// Tmux is the client of the server owt works on (the workspace's).
	Tmux func() *tmux.Client

	Create lifecycle.CreateOptions
	JSON   bool
	Switch bool // go to the new session
	DryRun bool // show the first prompt, make nothing
	// Host runs the agent on that configured host ([hosts.NAME]).
	Host string
	// SpecStdin reads the whole owt new from stdin as JSON (hosts.NewSpec):
	// how a local owt starts one here over ssh, with nothing the user
	// typed on the ssh command line.
	SpecStdin bool
}

// NewCommand is owt new; runF runs the options (nil: newRun).
func NewCommand(f *cmdutil.Factory, runF func(*newOptions) error) *cli.Command {
	if runF == nil {
		runF = newRun
	}
	return &cli.Command{
		Name:      "new",
		Usage:     "start an agent on a task in a new branch, worktree and tmux session",
		ArgsUsage: "TASK...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "the agent's `NAME`: its worktree folder, session and record (default: derived from the task)"},
			&cli.StringFlag{Name: "branch", Usage: "the new `BRANCH` (default: <type>/<name>)"},
			&cli.StringFlag{Name: "base", Usage: "local `BRANCH` to start from and merge back into (default: the current branch)"},
			&cli.StringFlag{Name: "tool", Usage: "agent `TOOL` (see owt tools; default: [agent] tool)"},
			&cli.BoolFlag{Name: "no-agent", Usage: "open a shell instead of an agent"},
			&cli.BoolFlag{Name: "plan", Usage: "start the tool in its plan / read-only mode"},
			&cli.BoolFlag{Name: "no-setup", Usage: "skip dependency install and setup commands"},
			&cli.BoolFlag{Name: "switch", Usage: "switch to the new session (attach when outside tmux)"},
			&cli.StringFlag{Name: "template", Value: templates.Auto, EnvVars: []string{"OWT_TEMPLATE"},
				Usage: "task `TEMPLATE` shaping the first prompt (see owt templates); auto guesses one from the task, none sends the task as it is"},
			&cli.IntFlag{Name: "issue", Usage: "the task is GitHub issue `N` (title, body, comments through gh), on branch issue-N-slug"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print the agent's first prompt and the memory facts it would get; create nothing"},
			&cli.BoolFlag{Name: "in-place", Usage: "no worktree: switch this checkout (clean, on a branch) to the new branch and start the agent here"},
			&cli.StringFlag{Name: "host", Usage: "run the agent on configured host `NAME` (owt host add) in its clone of this repository"},
			&cli.BoolFlag{Name: "spec-stdin", Hidden: true, Usage: "read the task and options as JSON from stdin (how owt starts an agent over ssh)"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			return runF(&newOptions{
				Host:      c.String("host"),
				SpecStdin: c.Bool("spec-stdin"),
				IO:        f.IO,
				Workspace: f.OpenWorkspace,
				Tmux:      f.Tmux,
				Create: lifecycle.CreateOptions{
					Task:     strings.Join(c.Args().Slice(), " "),
					Name:     c.String("name"),
					Branch:   c.String("branch"),
					Base:     c.String("base"),
					Tool:     c.String("tool"),
					NoAgent:  c.Bool("no-agent"),
					Plan:     c.Bool("plan"),
					NoSetup:  c.Bool("no-setup"),
					Template: c.String("template"),
					Issue:    c.Int("issue"),
					InPlace:  c.Bool("in-place"),
				},
				JSON:   c.Bool("json"),
				Switch: c.Bool("switch"),
				DryRun: c.Bool("dry-run"),
			})
		},
	}
}

// BranchCommand is owt branch: owt new --in-place, for quick tasks.
func BranchCommand(f *cmdutil.Factory, runF func(*newOptions) error) *cli.Command {
	if runF == nil {
		runF = newRun
	}
	cmd := NewCommand(f, func(o *newOptions) error {
		o.Create.InPlace = true
		return runF(o)
	})
	cmd.Name = "branch"
	cmd.Usage = "start an agent on a task on a new branch in this checkout, no worktree (owt new --in-place)"
	flags := cmd.Flags[:0:0]
	for _, fl := range cmd.Flags {
		switch fl.Names()[0] {
		case "in-place":
			continue
		case "name": // no worktree here: the name is the agent's session and record
			fl.(*cli.StringFlag).Usage = "the agent's `NAME`: its session and record (default: derived from the task)"
		}
		flags = append(flags, fl)
	}
	cmd.Flags = flags
	return cmd
}

// newRun creates the worktree, session and agent, and says what it made.
func newRun(o *newOptions) error {
	if o.SpecStdin {
		// Another machine's owt over ssh: its connection dropping (a
		// hang-up, output to a closed pipe) must not cut the create
		// off half-way; it finishes, or undoes itself on its own error.
		signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
		if err := readSpec(o); err != nil {
			return err
		}
	}
	// An agent's own owt new (from its shell tool) is its spawn: the
	// same [mcp] limits and parent link as spawn_agent.
	var spawner *state.Record
	if !o.DryRun {
		var err error
		if spawner, err = lifecycle.CallingAgent(os.Getpid()); err != nil {
			return err
		}
	}
	if spawner != nil && o.Host != "" {
		return fmt.Errorf("%w: this runs inside the agent %s, and an agent starts no agents on other hosts (its [mcp] limits hold on this machine)", lifecycle.ErrSpawnLimit, spawner.Name)
	}
	if o.Host != "" {
		return newOnHost(o)
	}
	open := o.Workspace
	if wd, err := os.Getwd(); err == nil && !o.DryRun && o.Tmux != nil {
		// The tmux server's sessions read while the repository is found
		// here, its branches in the same git call: owt new's first reads
		// at once, not one after the other.
		ahead := lifecycle.StartReadAhead(o.Tmux(), wd)
		o.Create.Ahead = ahead
		open = func() (*workspace.Workspace, error) {
			repo, err := ahead.Repo()
			if err != nil {
				return nil, err
			}
			return workspace.OpenRepo(repo, o.Tmux())
		}
	}
	w, err := open()
	if err != nil {
		return err
	}
	if !o.JSON {
		w.Log = o.IO.ErrOut
	}
	w.Warn = o.IO.ErrOut
	if o.Create.Issue < 0 {
		return cmdutil.UsageError{Msg: fmt.Sprintf("--issue %d: an issue number is 1 or more", o.Create.Issue)}
	}
	if o.Create.Issue > 0 && strings.TrimSpace(o.Create.Task) != "" {
		return cmdutil.UsageError{Msg: fmt.Sprintf("--issue %d is the task: give no task text with it", o.Create.Issue)}
	}
	if o.DryRun {
		p, err := lifecycle.Of(w).Preview(o.Create)
		if err != nil {
			return createError(err)
		}
		return printPreview(o, p)
	}
	var rec *state.Record
	switch {
	case spawner == nil:
		rec, err = lifecycle.Of(w).Create(o.Create)
	case spawner.Repo != w.Repo.Root:
		return fmt.Errorf("%w: this runs inside the agent %s of %s, and an agent starts agents only in its own repository, where its [mcp] limits hold", lifecycle.ErrSpawnLimit, spawner.Name, spawner.Repo)
	default:
		rec, err = lifecycle.Of(w).Spawn(spawner, o.Create)
		if errors.Is(err, lifecycle.ErrSpawnLimit) {
			return fmt.Errorf("this runs inside the agent %s, so it is its spawn: %w", spawner.Name, err)
		}
	}
	if err != nil {
		return createError(err)
	}
	if o.JSON {
		items := lifecycle.Collect(w.Tmux, []*state.Record{rec}, lifecycle.ListOptions{Fresh: true})
		if err := cmdutil.PrintJSON(o.IO.Out, items[0]); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(o.IO.Out, created(rec))
	}
	if o.Switch {
		return goTo(w.Tmux, rec.SessionID)
	}
	return nil
}

// createError is err of Create as owt reports it: no task, an invalid
// --name or --branch, a --base that does not exist are bad usage, like
// a missing NAME or an unknown --tool.
func createError(err error) error {
	if errors.Is(err, lifecycle.ErrEmptyTask) || errors.Is(err, lifecycle.ErrBadOption) || errors.Is(err, templates.ErrUnknown) {
		return cmdutil.UsageError{Msg: err.Error()}
	}
	return err
}

// created is the line owt new prints for what it made.
func created(rec *state.Record) string {
	tool := rec.Tool
	if rec.NoAgent {
		tool = "shell"
	}
	where := "in " + rec.Path
	if rec.InPlace {
		where = "in place in your checkout " + rec.Path
	}
	line := fmt.Sprintf("%s: %s on %s %s (tmux session %s)", rec.Name, tool, rec.Branch, where, rec.Session)
	if rec.Template != "" {
		line += ", template " + rec.Template
	}
	if rec.Spawner != "" {
		line += ", spawned by " + rec.Spawner
	}
	return line
}

// goTo moves the user to a session: switch-client inside tmux, else attach
// (replacing owt with the tmux client so the terminal belongs to it).
func goTo(tm *tmux.Client, sessionID string) error {
	if tm.InsideThis() {
		return tm.SwitchClient(sessionID)
	}
	argv := tm.AttachArgv(sessionID)
	bin, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(bin, argv, os.Environ())
}
