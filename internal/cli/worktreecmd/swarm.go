package worktreecmd

// owt swarm: start, list, send to and stop a swarm, a coordinator and role
// workers in one worktree (see internal/swarm).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/peers"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/swarm"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// Command is owt swarm and its subcommands.
func SwarmCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "swarm",
		Usage: "a coordinator and role workers (researcher, implementer, reviewer, tester) in one worktree",
		Subcommands: []*cli.Command{
			startCommand(f), listCommand(f), sendCommand(f), stopCommand(f),
		},
	}
}

// startOptions is one owt swarm start as typed.
type startOptions struct {
	IO        *cmdutil.IOStreams
	Workspace func() (*workspace.Workspace, error)
	Start     swarm.StartOptions
	JSON      bool
}

func startCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "start",
		Usage:     "start a swarm on GOAL: in worktree NAME (-w) or a new one, a coordinator and one agent per role, each in its own window",
		ArgsUsage: "GOAL...",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "worktree", Aliases: []string{"w"}, Usage: "the existing worktree `NAME` to swarm in (default: a new one made from the goal)"},
			&cli.StringFlag{Name: "workers", Usage: "`ROLES`, comma-separated (default: " + strings.Join(swarm.Roles, ",") + ")"},
			&cli.StringFlag{Name: "tool", Usage: "agent `TOOL` of every member (default: [agent] tool)"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			roles, err := swarm.ParseWorkers(c.String("workers"))
			if err != nil {
				return cmdutil.Usagef("%v", strings.TrimPrefix(err.Error(), swarm.ErrBadOption.Error()+": "))
			}
			goal := strings.Join(c.Args().Slice(), " ")
			if strings.TrimSpace(goal) == "" {
				return cmdutil.Usagef("swarm start needs a GOAL, e.g. owt swarm start \"add rate limiting to the API\"")
			}
			from, _ := os.Getwd()
			return startRun(&startOptions{IO: f.IO, Workspace: f.OpenWorkspace, JSON: c.Bool("json"),
				Start: swarm.StartOptions{Goal: goal, Name: c.String("worktree"), Workers: roles, Tool: c.String("tool"), From: from}})
		},
	}
}

func startRun(o *startOptions) error {
	if err := lifecycle.RefuseInAgent(os.Getpid(), "swarm"); err != nil {
		return err
	}
	w, err := o.Workspace()
	if err != nil {
		return err
	}
	if !o.JSON {
		w.Log = o.IO.ErrOut
	}
	w.Warn = o.IO.ErrOut
	sw, err := swarm.Of(w).Start(o.Start)
	if err != nil {
		if errors.Is(err, swarm.ErrBadOption) || errors.Is(err, lifecycle.ErrBadOption) || errors.Is(err, lifecycle.ErrEmptyTask) {
			return cmdutil.UsageError{Msg: strings.TrimPrefix(err.Error(), swarm.ErrBadOption.Error()+": ")}
		}
		return err
	}
	if o.JSON {
		return cmdutil.PrintJSON(o.IO.Out, shown(sw))
	}
	fmt.Fprintf(o.IO.Out, "swarm in %s (%s, tmux session %s):\n", sw.Host, sw.Path, sw.Session)
	printWorkers(o.IO.Out, sw.Workers, sw.Lost)
	fmt.Fprintf(o.IO.Out, "message it: owt swarm send %s TEXT; end it: owt swarm stop %s\n", sw.Host, sw.Host)
	return nil
}

// swarmJSON is a swarm as --json shows it.
type swarmJSON struct {
	Host    string       `json:"host"`
	Goal    string       `json:"goal"`
	Path    string       `json:"path"`
	Branch  string       `json:"branch"`
	Session string       `json:"session"`
	Workers []workerJSON `json:"workers"`
}

type workerJSON struct {
	Name   string       `json:"name"`
	Role   string       `json:"role"`
	Tool   string       `json:"tool"`
	Status state.Status `json:"status"`
	// Lost: its window went with its host's session; Status is what it
	// last was.
	Lost     bool     `json:"lost,omitempty"`
	ReadOnly bool     `json:"read_only"`
	Pane     string   `json:"pane"`
	Edited   []string `json:"edited"`
}

func shown(sw swarm.Swarm) swarmJSON {
	out := swarmJSON{Host: sw.Host, Goal: sw.Goal, Path: sw.Path, Branch: sw.Branch, Session: sw.Session, Workers: []workerJSON{}}
	for _, r := range sw.Workers {
		edited := r.Swarm.Edited
		if edited == nil {
			edited = []string{}
		}
		out.Workers = append(out.Workers, workerJSON{Name: r.Name, Role: r.Swarm.Role, Tool: r.Tool, Status: r.Status,
			Lost: sw.Lost[r.Name], ReadOnly: r.ReadOnly, Pane: r.Pane, Edited: edited})
	}
	return out
}

func printWorkers(out io.Writer, workers []*state.Record, lost map[string]bool) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, r := range workers {
		mode := ""
		if r.ReadOnly {
			mode = "read-only"
		}
		status := string(r.Status)
		if lost[r.Name] {
			status = "lost (no window: was " + status + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", untrusted.From(r.Name).Line(), r.Tool, status, mode)
	}
	_ = tw.Flush()
}

func listCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "the swarms of this repository and their workers' status",
		Flags: []cli.Flag{cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c, "swarm list"); err != nil {
				return err
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			all, err := swarm.Of(w).List()
			if err != nil {
				return err
			}
			if c.Bool("json") {
				out := make([]swarmJSON, 0, len(all))
				for _, sw := range all {
					out = append(out, shown(sw))
				}
				return cmdutil.PrintJSON(f.IO.Out, out)
			}
			if len(all) == 0 {
				fmt.Fprintln(f.IO.Out, "no swarm (owt swarm start GOAL starts one)")
				return nil
			}
			for _, sw := range all {
				fmt.Fprintf(f.IO.Out, "%s: %s\n", sw.Host, cmdutil.OneLine(sw.Goal))
				printWorkers(f.IO.Out, sw.Workers, sw.Lost)
			}
			return nil
		},
	}
}

func sendCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "send",
		Usage:     "type TEXT into every worker of the swarm in NAME (TEXT '-' reads stdin)",
		ArgsUsage: "NAME TEXT...",
		Flags:     []cli.Flag{cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return cmdutil.Usagef("swarm send needs NAME and TEXT")
			}
			msg := strings.Join(c.Args().Tail(), " ")
			if msg == "-" {
				b, err := io.ReadAll(f.IO.In)
				if err != nil {
					return fmt.Errorf("read stdin: %w", err)
				}
				msg = strings.TrimRight(string(b), "\r\n")
			}
			if strings.TrimSpace(msg) == "" {
				return cmdutil.Usagef("nothing to send: TEXT is empty")
			}
			// An agent's own (a coordinator's shell) is its message, as
			// owt send signs it.
			msg, _, err := peers.AsCaller(os.Getpid(), msg)
			if err != nil {
				return err
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			res, err := swarm.Of(w).Send(c.Args().First(), untrusted.From(msg))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(f.IO.Out, res)
			}
			failed := 0
			for _, r := range res {
				if r.Err != "" {
					failed++
					fmt.Fprintf(f.IO.ErrOut, "owt: not sent to %s\n", cmdutil.OneLine(r.Err))
					continue
				}
				fmt.Fprintf(f.IO.Out, "sent to %s\n", r.Name)
			}
			if failed > 0 {
				return cmdutil.ExitWith(1)
			}
			return nil
		},
	}
}

func stopCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "stop",
		Usage:     "close the swarm's windows and forget its workers; the worktree, its branch and commits stay",
		ArgsUsage: "NAME",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "stop workers in the middle of a turn too"}, cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("swarm stop takes one NAME")
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			w.Warn = f.IO.ErrOut
			rep, err := swarm.Of(w).Stop(c.Args().First(), c.Bool("force"))
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(f.IO.Out, rep)
			}
			fmt.Fprintf(f.IO.Out, "stopped %s; kept the worktree %s and branch %s\n", strings.Join(rep.Stopped, ", "), rep.Path, rep.Branch)
			if rep.TesterUnchecked != "" {
				fmt.Fprintf(f.IO.Out, "the tester's edits were not checked (%s): review what it changed outside tests yourself\n", rep.TesterUnchecked)
			}
			if len(rep.NotTests) > 0 {
				fmt.Fprintf(f.IO.Out, "NEEDS YOU: the tester changed files that are not tests: %s (shown in owt list and the control board; owt dismiss %s clears it)\n",
					untrusted.Some(rep.NotTests, workspace.ListedMax), rep.Host)
			}
			return nil
		},
	}
}
