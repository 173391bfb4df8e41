package runcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/git"
	"github.com/owt-tmux/owt/internal/hosts"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/templates"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/usage"
	"github.com/owt-tmux/owt/internal/workspace"
)

// RunsCommand is owt run: task graphs.
func RunsCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "task graphs: validate a plan file, register it as a run, follow it",
		Subcommands: []*cli.Command{
			runStartCommand(f, "start"),
			{
				Name:   "list",
				Usage:  "list the registered runs",
				Flags:  []cli.Flag{cmdutil.JSONFlag()},
				Action: func(c *cli.Context) error { return runList(f, c) },
			},
			{
				Name:      "status",
				Usage:     "show a run and each task's state (default: the only run, else the newest active one)",
				ArgsUsage: "[NAME]",
				Flags:     []cli.Flag{cmdutil.JSONFlag()},
				Action:    func(c *cli.Context) error { return runStatus(f, c) },
			},
			runStateCommand(f, "pause", run.Paused, "start no new task until 'owt run resume'"),
			runResumeCommand(f),
			runStateCommand(f, "stop", run.Stopped, "start no new task; running agents are left alone"),
			runTaskCommand(f, "retry", "give a failed, cancelled, stuck or backing-off task another attempt now, in its worktree"),
			runTaskCommand(f, "skip", "do not run a task; it counts as done for its dependents (a running agent is left alone)"),
			runTaskCommand(f, "cancel", "do not run a task; its dependents wait until it is retried or skipped"),
			{
				Name:      "forget",
				Usage:     "remove a stopped, paused, finished or failed run (or a corrupt one) from owt's records; its worktrees and agents stay",
				ArgsUsage: "NAME",
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return cmdutil.Usagef("run forget takes one NAME")
					}
					name := c.Args().First()
					if err := run.DefaultStore().Forget(name); err != nil {
						return err
					}
					fmt.Fprintf(c.App.Writer, "forgot run %s (its worktrees, branches and agents are left as they are)\n", name)
					return nil
				},
			},
			{
				Name:      "log",
				Usage:     "print a run's event log",
				ArgsUsage: "NAME",
				Flags:     []cli.Flag{cmdutil.JSONFlag()},
				Action:    func(c *cli.Context) error { return runLog(f, c) },
			},
		},
	}
}

// BatchCommand is the seed's name for owt run start.
func BatchCommand(f *cmdutil.Factory) *cli.Command {
	c := runStartCommand(f, "batch")
	c.Usage = "the same as 'owt run start FILE' (the name older tools used)"
	return c
}

func runStartCommand(f *cmdutil.Factory, name string) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     "validate a plan file, print its waves and register it as a run",
		ArgsUsage: "FILE",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "the run's `NAME` (default: the file's name without its extension)"},
			&cli.BoolFlag{Name: "dry-run", Usage: "validate and print the waves; register nothing"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("%s takes one FILE", c.Command.HelpName)
			}
			return runStart(f, c, c.Args().First())
		},
	}
}

func runStart(f *cmdutil.Factory, c *cli.Context, file string) error {
	p, err := run.ParseFile(file)
	if err != nil {
		return planProblems(f, err)
	}
	if into := c.String("into"); into != "" { // owt orchestrate --into
		p.Into, p.IntoBase = into, false
	}
	name := c.String("name")
	if name != "" && !run.ValidName(name) {
		return cmdutil.Usagef("--name %q cannot name a run: %s", name, run.NameRule)
	}
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if !run.ValidName(name) {
		return cmdutil.Usagef("the file's name %q cannot name a run: %s; give --name", name, run.NameRule)
	}
	repo, base, err := planInRepo(f, p)
	if err != nil {
		return err
	}
	if abs, err := filepath.Abs(file); err == nil {
		p.File = abs
	}
	r := run.NewRun(name, repo.Root, base, p, time.Now())
	tm := f.Tmux()
	r.Socket = tm.ServerSocket()
	r.Server, _ = tm.ServerIdentity() // none runs yet: the monitor that drives it records its server
	store := run.DefaultStore()
	taken := store.Exists(name) // Create checks again under the lock
	clash := worktreeClash(store, r)
	if clash == "" {
		if clash, err = worktreeInUse(tm, r); err != nil {
			return err
		}
	}
	out := c.App.Writer
	if c.Bool("dry-run") {
		printPlan(out, file, r)
		if taken {
			fmt.Fprintf(out, "note: a run named %s exists; registering would need another --name\n", name)
		}
		if clash != "" {
			// A task could never start: the plan as named is not runnable.
			return fmt.Errorf("dry run: %s", clash)
		}
		fmt.Fprintln(out, "dry run: nothing registered")
		return nil
	}
	if err := lifecycle.RefuseInAgent(os.Getpid(), "run"); err != nil {
		return err
	}
	if taken {
		return fmt.Errorf("run %s %w (see 'owt run status %s', or give another --name)", name, run.ErrRunExists, name)
	}
	if clash != "" {
		return errors.New(clash)
	}
	printPlan(out, file, r)
	err = store.CreateChecked(r, func() error {
		// Again under the registration lock: a run registered meanwhile
		// may have taken a name.
		if clash := worktreeClash(store, r); clash != "" {
			return errors.New(clash)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "registered run %s ('owt run status %s')\n", name, name)
	fmt.Fprintln(out, driveMonitor(tm))
	return nil
}

// worktreeClash says which task of r would get the worktree name a task
// of another registered run has (run "q" task "a-b" and run "q-a" task
// "b" are both q-a-b), "" when none.
func worktreeClash(store run.Store, r *run.Run) string {
	others, _ := store.List() // a broken run file is reported by owt run list
	used := map[string]string{}
	for _, o := range others {
		if o.Name == r.Name {
			continue
		}
		for _, t := range o.Tasks {
			used[o.Name+"-"+t.ID] = fmt.Sprintf("task %s of run %s", t.ID, o.Name)
		}
	}
	for _, t := range r.Tasks {
		if who, ok := used[r.Name+"-"+t.ID]; ok {
			return fmt.Sprintf("task %s of run %s would get the worktree %s-%s, which %s has: give another --name", t.ID, r.Name, r.Name, t.ID, who)
		}
	}
	return ""
}

// worktreeInUse says which task of r would get a worktree name already
// in use in its repository (a worktree, branch, folder or session of that
// name: Create would refuse it at every attempt), "" when none.
func worktreeInUse(tm *tmux.Client, r *run.Run) (string, error) {
	w, err := workspace.Open(r.Repo, tm)
	if err != nil {
		return "", fmt.Errorf("check the tasks' worktree names: %w", err)
	}
	for _, t := range r.Plan.Tasks {
		name := r.Name + "-" + t.ID
		why, err := lifecycle.Of(w).NameTaken(name, t.Task)
		if err != nil {
			return "", fmt.Errorf("check worktree %s: %w", name, err)
		}
		if why != "" {
			return fmt.Sprintf("task %s of run %s would get the worktree %s, which is in use: %s; give another --name", t.ID, r.Name, name, why), nil
		}
	}
	return "", nil
}

// taskWhy is the one-line reason a task is where it is, for the table:
// what it needs you for, why it failed or waits, what it is owed.
func taskWhy(t run.TaskView) string {
	why := t.Why
	if why == "" && t.Failure != nil && (t.State == run.Failed || t.State == run.Backoff) {
		why = t.Failure.Class + ": " + t.Failure.Error.Block()
	}
	if why == "" && len(t.BlockedBy) > 0 {
		why = "blocked by " + strings.Join(t.BlockedBy, ", ")
	}
	why = cmdutil.Shown(why)
	if r := []rune(why); len(r) > 80 {
		why = string(r[:79]) + "…"
	}
	return why
}

// driveMonitor starts the monitor of tm's server, where the run engine
// lives, unless it runs, and says who drives the run: a run nobody drives
// must not look like one in progress.
func driveMonitor(tm *tmux.Client) string {
	socket := tm.ServerSocket()
	if !tm.Running() {
		return fmt.Sprintf("no tmux server runs at %s: nothing starts until one does and owt's monitor runs there (owt's tmux plugin, 'owt tmux init' or any 'owt new' starts it)", socket)
	}
	if self, err := os.Executable(); err == nil {
		if err := daemon.EnsureRunning(self, tm); err != nil {
			return fmt.Sprintf("owt's monitor for this tmux server could not be started (%v): nothing starts until it runs ('owt tmux init')", err)
		}
	}
	return "the monitor of this tmux server drives it: closing this terminal changes nothing"
}

// monitorWarning is a line for owt run status when no monitor drives the
// run's server (nothing will start or be judged), else "".
func monitorWarning(v run.View) string {
	if v.State == run.Finished || v.State == run.RunFailed || v.Socket == "" || daemon.Running(v.Socket) {
		return ""
	}
	return fmt.Sprintf("no owt monitor runs for the tmux server at %s: nothing starts or is judged until one does ('owt run resume %s' from inside it starts one)", v.Socket, v.Name)
}

// planInRepo checks what needs the repository: the base branch (the plan's,
// else the one checked out here) exists, tools are known, into can be a
// branch. Problems go out as the plan's own.
func planInRepo(f *cmdutil.Factory, p *run.Plan) (git.Repo, string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return git.Repo{}, "", err
	}
	repo, err := git.FindRepo(wd)
	if err != nil {
		return git.Repo{}, "", fmt.Errorf("owt run start works in a git repository: %w", err)
	}
	var ps config.Problems
	add := func(key, format string, args ...any) {
		ps = append(ps, config.Problem{File: p.File, Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	base := p.Base
	switch {
	case base == "" && repo.HeadBranch == "":
		add("run.base", "not set, and the checkout is on no branch: set base")
	case base == "":
		base = repo.HeadBranch
	case !repo.BranchExists(base):
		add("run.base", "no branch %q in %s", base, repo.Root)
	}
	if p.Into != "" && !git.ValidBranchName(p.Into) {
		add("run.into", "%q is not a branch name git accepts", p.Into)
	}
	ps = append(ps, unknownTools(p)...)
	ps = append(ps, unknownTemplates(p)...)
	ps = append(ps, unknownPlaces(p, repo.Root)...)
	if len(ps) > 0 {
		return repo, "", planProblems(f, ps)
	}
	return repo, base, nil
}

// unknownTools names each tool the plan asks for that owt has no profile
// of. A config that does not load is left for the engine to report.
func unknownTools(p *run.Plan) config.Problems {
	cfg, _, err := cmdutil.LoadConfig()
	if err != nil {
		return nil
	}
	profiles, err := agent.Profiles(cfg)
	if err != nil {
		return nil
	}
	var ps config.Problems
	check := func(key, tool string) {
		if _, ok := profiles[tool]; tool != "" && !ok {
			ps = append(ps, config.Problem{File: p.File, Key: key, Msg: fmt.Sprintf("unknown tool %q (see 'owt tools')", tool)})
		}
	}
	check("run.tool", p.Tool)
	for _, t := range p.Tasks {
		check("task["+t.ID+"].tool", t.Tool)
	}
	return ps
}

// unknownPlaces names each host and label the plan places a task at that
// no configured host answers to (or whose host has no clone of the
// repository): the plan is refused before anything is registered. A
// config that does not load is a problem too when the plan places tasks.
func unknownPlaces(p *run.Plan, root string) config.Problems {
	var ps config.Problems
	var cfg config.Config
	var cfgErr error
	loaded := false
	check := func(key, host string, labels []string) {
		if host == "" && len(labels) == 0 {
			return
		}
		if !loaded {
			cfg, _, cfgErr = cmdutil.LoadConfig()
			loaded = true
		}
		if cfgErr != nil {
			ps = append(ps, config.Problem{File: p.File, Key: key, Msg: "places the task on a host, and the config does not load: " + cfgErr.Error()})
			return
		}
		if _, err := hosts.Placed(cfg, root, host, labels); err != nil {
			ps = append(ps, config.Problem{File: p.File, Key: key, Msg: err.Error()})
		}
	}
	key := func(host string) string {
		if host != "" {
			return "host"
		}
		return "labels"
	}
	check("run."+key(p.Host), p.Host, p.Labels)
	for _, t := range p.Tasks {
		check("task["+t.ID+"]."+key(t.Host), t.Host, t.Labels)
	}
	return ps
}

// unknownTemplates names each task template the plan asks for that
// owt does not know.
func unknownTemplates(p *run.Plan) config.Problems {
	cfg, root, err := cmdutil.LoadConfig()
	if err != nil {
		return nil
	}
	var ps config.Problems
	for _, t := range p.Tasks {
		if t.Template == "" || t.Template == templates.None || t.Template == templates.Auto {
			continue
		}
		if _, err := templates.Find(cfg, root, t.Template); err != nil {
			ps = append(ps, config.Problem{File: p.File, Key: "task[" + t.ID + "].template", Msg: err.Error() + " (see 'owt templates')"})
		}
	}
	return ps
}

// planProblems prints each problem of a plan on its own line and ends
// owt with the usage exit code; any other error passes through.
func planProblems(f *cmdutil.Factory, err error) error {
	var ps config.Problems
	if !errors.As(err, &ps) {
		return err
	}
	for _, p := range ps {
		fmt.Fprintln(f.IO.ErrOut, "owt: "+p.Error())
	}
	return cmdutil.ExitWith(cmdutil.ExitUsage)
}

// printPlan shows the waves, each task with what it waits for.
func printPlan(out io.Writer, file string, r *run.Run) {
	p := &r.Plan
	fmt.Fprintf(out, "plan %s: %s\n", file, p.String())
	for i, wave := range p.Waves() {
		words := make([]string, len(wave))
		for j, id := range wave {
			words[j] = id
			if t, ok := p.TaskByID(id); ok && len(t.DependsOn) > 0 {
				words[j] += " (after " + strings.Join(t.DependsOn, ", ") + ")"
			}
		}
		fmt.Fprintf(out, "wave %d: %s\n", i+1, strings.Join(words, ", "))
	}
	where := "base " + r.Base
	if r.Into != "" {
		where += ", done tasks land in " + r.Into
	} else {
		where += ", nothing lands by itself (no into)"
	}
	fmt.Fprintln(out, where)
	if w := intoCheckoutWarning(r); w != "" {
		fmt.Fprintln(out, "warning: "+w)
	}
}

// intoCheckoutWarning says when into is checked out in a checkout that is
// not clean, or in the worktree of an agent mid-turn: nothing lands there
// until it is clean, or idle (owt merge's rules), "" else.
func intoCheckoutWarning(r *run.Run) string {
	if r.Into == "" {
		return ""
	}
	records := func() ([]*state.Record, error) {
		f, err := state.ForRepo(r.Repo).Peek()
		if err != nil {
			return nil, err
		}
		return f.Sorted(), nil
	}
	var dirty *land.TargetDirtyError
	var busy *land.TargetBusyError
	switch err := land.CheckTarget(git.Repo{Root: r.Repo}, records, r.Into); {
	case errors.As(err, &busy):
		return busy.Where() + "; the run lands there once it is idle"
	case errors.As(err, &dirty):
		return dirty.Where() + "; the run lands nothing there until that checkout is clean (owt never stashes, resets or cleans it)"
	}
	return ""
}

func runList(f *cmdutil.Factory, c *cli.Context) error {
	if err := cmdutil.NoArgs(c, "run list"); err != nil {
		return err
	}
	runs, broken, err := listRunsAndBroken(f)
	if err != nil {
		return err
	}
	views := make([]run.View, 0, len(runs))
	for _, r := range runs {
		views = append(views, r.View())
	}
	if c.Bool("json") {
		return cmdutil.PrintJSON(c.App.Writer, views) // unreadable runs: said on stderr
	}
	if len(views) == 0 && len(broken) == 0 {
		fmt.Fprintln(c.App.Writer, "no runs ('owt run start FILE' registers one)")
		return nil
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tDONE\tBASE\tINTO\tREPO")
	for _, v := range views {
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\n", v.Name, v.State, v.Finished, len(v.Tasks), v.Base, orDash(v.Into), v.Repo)
	}
	for _, b := range broken {
		// Still a run (its name is taken, its agents may work): say it is
		// there and why it cannot be shown.
		fmt.Fprintf(tw, "%s\tunreadable\t-\t-\t-\t%s\n", b.Name, cmdutil.Shown(b.Error()))
	}
	return tw.Flush()
}

// namedRun is the run a command's argument names; with none (when
// optional), the only run, else the newest active one.
func namedRun(f *cmdutil.Factory, c *cli.Context, verb string, optional bool) (*run.Run, error) {
	store := run.DefaultStore()
	switch {
	case c.NArg() == 1:
		r, err := store.Load(c.Args().First())
		if err != nil {
			return nil, err
		}
		return noteRestarts(f, []*run.Run{r})[0], nil
	case c.NArg() > 1 || !optional:
		return nil, cmdutil.Usagef("%s takes one NAME", verb)
	}
	runs, err := listRuns(f)
	if err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: none is registered ('owt run start FILE' registers one)", run.ErrNoSuchRun)
	}
	// In a repository, the run meant is one of its own.
	if wd, err := os.Getwd(); err == nil {
		if repo, err := git.FindRepo(wd); err == nil {
			if here := run.OfRepo(runs, repo.Root); len(here) > 0 {
				runs = here
			} else {
				return nil, fmt.Errorf("%w in %s (runs of other repos: %s; name one)", run.ErrNoSuchRun, repo.Root, strings.Join(runNames(runs), ", "))
			}
		}
	}
	r, ok := run.Latest(runs)
	if !ok {
		return nil, cmdutil.Usagef("%s: no run is active; name one of %s", verb, strings.Join(runNames(runs), ", "))
	}
	return r, nil
}

func runNames(runs []*run.Run) []string {
	names := make([]string, len(runs))
	for i, r := range runs {
		names[i] = r.Name
	}
	return names
}

func runStatus(f *cmdutil.Factory, c *cli.Context) error {
	r, err := namedRun(f, c, "run status", true)
	if err != nil {
		return err
	}
	v := r.View() // namedRun noted what into lost (noteLost): landed only while into holds it
	v.Tokens = usage.TokensOf(r.Repo, r.AgentNames())
	if c.Bool("json") {
		return cmdutil.PrintJSON(c.App.Writer, v)
	}
	out := c.App.Writer
	state := string(v.State)
	if v.Why != "" {
		state += " (" + v.Why + ")"
	}
	fmt.Fprintf(out, "run %s: %s, %d/%d done, base %s", v.Name, state, v.Finished, len(v.Tasks), v.Base)
	if v.Into != "" {
		fmt.Fprintf(out, ", lands in %s", v.Into)
	}
	if v.Tokens > 0 || v.BudgetTokens > 0 {
		fmt.Fprintf(out, ", %s tokens", usage.FormatTokens(v.Tokens))
		if v.BudgetTokens > 0 {
			fmt.Fprintf(out, " of a %s budget", usage.FormatTokens(v.BudgetTokens))
		}
	}
	fmt.Fprintf(out, " (%s)\n", v.Repo)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tATTEMPT\tHOST\tWORKTREE\tAFTER\tWHY")
	for _, t := range v.Tasks {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", t.ID, t.State, t.Attempt, taskHost(t), orDash(t.Name), orDash(strings.Join(t.DependsOn, ",")), orDash(taskWhy(t)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if w := monitorWarning(v); w != "" {
		fmt.Fprintln(out, w)
	}
	return nil
}

// runStateCommand is owt run pause|resume|stop NAME: the run's state
// changes under its lock and the change is logged; the engine reads it.
func runStateCommand(f *cmdutil.Factory, verb string, to run.RunState, usage string) *cli.Command {
	return &cli.Command{
		Name:      verb,
		Usage:     usage,
		ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("run %s takes one NAME", verb)
			}
			name := c.Args().First()
			changed, err := control.SetRunState(run.DefaultStore(), name, to)
			if err != nil {
				return err
			}
			if !changed {
				fmt.Fprintf(c.App.Writer, "run %s is already %s\n", name, to)
				return nil
			}
			fmt.Fprintf(c.App.Writer, "run %s: %s\n", name, to)
			return nil
		},
	}
}

func runLog(f *cmdutil.Factory, c *cli.Context) error {
	if c.NArg() != 1 {
		return cmdutil.Usagef("run log takes one NAME")
	}
	events, err := run.DefaultStore().Events(c.Args().First())
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if events == nil {
			events = []run.Event{}
		}
		return cmdutil.PrintJSON(c.App.Writer, events)
	}
	for _, ev := range events {
		line := ev.At.Local().Format("2006-01-02 15:04:05") + "  " + ev.Event
		if ev.Task != "" {
			line += "  " + cmdutil.Shown(ev.Task)
		}
		if ev.Detail != "" {
			line += "  " + cmdutil.Shown(ev.Detail)
		}
		fmt.Fprintln(c.App.Writer, line)
	}
	return nil
}

// taskHost is where a task runs: local, a host's name, or, before a
// labelled task starts, the labels its host will have.
func taskHost(t run.TaskView) string {
	if t.Host == "" && len(t.Labels) > 0 {
		return "labels:" + strings.Join(t.Labels, ",")
	}
	return t.Host
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// listRuns lists the runs; a run whose file cannot be read is said on
// stderr and left out, so it does not hide the others.
func listRuns(f *cmdutil.Factory) ([]*run.Run, error) {
	runs, _, err := listRunsAndBroken(f)
	return runs, err
}

// listRunsAndBroken is listRuns with the runs whose file cannot be read.
func listRunsAndBroken(f *cmdutil.Factory) ([]*run.Run, []*run.BrokenRun, error) {
	runs, err := run.DefaultStore().List()
	var broken run.BrokenRuns
	if !errors.As(err, &broken) {
		return noteRestarts(f, runs), nil, err
	}
	var brs []*run.BrokenRun
	for _, b := range broken {
		fmt.Fprintln(f.IO.ErrOut, "owt: warning: "+b.Error())
		var br *run.BrokenRun
		if errors.As(b, &br) {
			brs = append(brs, br)
		}
	}
	return noteRestarts(f, runs), brs, nil
}

// noteRestarts pauses each run whose tmux server restarted while no
// monitor runs there to notice (its engine would pause it): a run nobody
// can drive must not read as active. A server with a monitor is left to
// it, so the usual look costs no tmux call. Then landed work that into
// lost is noted (noteLost).
func noteRestarts(f *cmdutil.Factory, runs []*run.Run) []*run.Run {
	ids := map[string]string{} // by socket: the identity of the server there now, "" for none
	for i, r := range runs {
		if r.Socket == "" || r.Server == "" || r.State == run.Finished || r.State == run.RunFailed ||
			(r.State == run.Paused && r.Why == run.RestartWhy) {
			continue
		}
		id, ok := ids[r.Socket]
		if !ok {
			if !daemon.Running(r.Socket) {
				id, _ = (&tmux.Client{Bin: f.Tmux().Bin, Socket: r.Socket}).ServerIdentity()
			}
			ids[r.Socket] = id
		}
		if id == "" || id == r.Server {
			continue
		}
		if now, err := run.DefaultStore().NoteRestart(r.Name, id, time.Now()); err == nil {
			runs[i] = now
		} else {
			fmt.Fprintf(f.IO.ErrOut, "owt: warning: run %s: %v\n", r.Name, err)
		}
	}
	return noteLost(f, runs)
}

// noteLost records, for each run, the landed work its into no longer
// holds (run.Store.NoteLost): what every view and command then reads.
func noteLost(f *cmdutil.Factory, runs []*run.Run) []*run.Run {
	for i, r := range runs {
		now, err := run.DefaultStore().NoteLost(r, time.Now())
		if err != nil {
			fmt.Fprintf(f.IO.ErrOut, "owt: warning: run %s: %v\n", r.Name, err)
		}
		runs[i] = now
	}
	return runs
}
