package worktreecmd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/internal/workspace"
)

// restoreOptions are owt restore's.
type restoreOptions struct {
	IO        *cmdutil.IOStreams
	Tmux      *tmux.Client
	Workspace func() (*workspace.Workspace, error)

	All    bool // every repository's agents, not only this one's
	DryRun bool // say what would be done, do nothing
	JSON   bool
	Popup  bool          // the Alt+r popup: wait for Enter before closing
	Wait   time.Duration // how long to wait for the agents to show they resumed
}

// RestoreResult is what owt restore did for one agent.
type RestoreResult struct {
	Repo string `json:"repo"`
	Name string `json:"name"`
	Tool string `json:"tool,omitempty"`
	// Action: resumed (its conversation goes on), fresh (started anew
	// with its task and an account of its work; Why says why), starting
	// (started; not yet shown either way when owt stopped waiting),
	// running (its session is there: left alone), exited (its agent had
	// ended by itself before: not started again), failed (Why), and with
	// --dry-run would-resume / would-start-fresh.
	Action  string `json:"action"`
	Session string `json:"session,omitempty"`
	Why     string `json:"why,omitempty"`
}

func RestoreCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "restore",
		Usage: "after a reboot or a dead tmux server, bring back this repo's agents (--all: every repo's) whose worktree exists and whose session is gone, each on its own conversation",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "every repository's agents"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would be brought back, and how; change nothing"},
			&cli.BoolFlag{Name: "popup", Usage: "wait for Enter before exiting (the Alt+r popup)"},
			&cli.DurationFlag{Name: "wait", Value: time.Minute, Usage: "wait up to `DURATION` for the agents to show they resumed"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("restore takes no arguments (--all for every repository)")
			}
			if c.Duration("wait") < 0 {
				return cmdutil.Usagef("--wait must not be negative")
			}
			o := &restoreOptions{IO: f.IO, Tmux: f.Tmux(), Workspace: f.OpenWorkspace,
				All: c.Bool("all"), DryRun: c.Bool("dry-run"), JSON: c.Bool("json"), Popup: c.Bool("popup"), Wait: c.Duration("wait")}
			return runRestore(o)
		},
	}
}

func runRestore(o *restoreOptions) error {
	err := restore(o)
	if o.Popup {
		if err != nil {
			fmt.Fprintf(o.IO.Out, "owt: %v\n", err)
		}
		fmt.Fprint(o.IO.Out, "\nPress Enter to close.")
		_, _ = bufio.NewReader(o.IO.In).ReadString('\n')
	}
	return err
}

func restore(o *restoreOptions) error {
	spaces, err := restoreWorkspaces(o)
	if err != nil {
		return err
	}
	out := o.IO.Out
	if o.JSON {
		out = io.Discard
	}
	var results []RestoreResult
	type started struct {
		w    *workspace.Workspace
		at   int // its index in results
		name string
	}
	var waiting []started
	for _, w := range spaces {
		lc := lifecycle.Of(w)
		recs, err := w.Records()
		if err != nil {
			return err
		}
		loc, err := workspace.ListLocator(w.Tmux)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if r.NoAgent || r.Swarm != nil || lifecycle.CreateStateOf(r) != lifecycle.Created {
				continue
			}
			where := loc.Locate(r)
			res := RestoreResult{Repo: r.Repo, Name: r.Name, Tool: r.Tool}
			switch {
			case where.Place == workspace.Here:
				res.Action, res.Why = "running", "its session "+r.Session+" is running: left alone"
			case where.Place == workspace.Elsewhere:
				res.Action, res.Why = "running", "its session runs on another tmux server ("+where.Socket+"): left alone"
			case lifecycle.ExitedBefore(r):
				res.Action, res.Why = "exited", fmt.Sprintf("its agent had ended by itself (exit code %d) before its session went: not started again ('owt attach %s' gives it a session)", *r.ExitCode, r.Name)
			case !lifecycle.Lost(r, where):
				res.Action, res.Why = "failed", "its worktree "+r.Path+" is gone ('owt doctor' says what to do)"
			case o.DryRun:
				plan := lc.PlanResume(r)
				res.Session = plan.Session
				res.Action = "would-resume"
				if plan.Fresh != "" {
					res.Action, res.Why, res.Session = "would-start-fresh", plan.Fresh, ""
				}
			default:
				rec, err := lc.ResumeAgent(r.Name, "")
				switch {
				case errors.Is(err, lifecycle.ErrNotLost):
					// Another restore brought it back, or a cut-off one
					// had started its session (recorded again now).
					res.Action, res.Why = "running", strings.TrimPrefix(err.Error(), r.Name+": ")+": left alone"
				case errors.Is(err, lifecycle.ErrExitedBefore):
					res.Action, res.Why = "exited", err.Error()
				case errors.Is(err, state.ErrUnknownName):
					continue // deleted meanwhile: it stays deleted
				case err != nil:
					res.Action, res.Why = "failed", err.Error()
				default:
					res.Action = "starting"
					if rec.Resume != nil {
						res.Session = rec.Resume.Session
					}
					waiting = append(waiting, started{w: w, at: len(results), name: r.Name})
				}
			}
			results = append(results, res)
			if res.Action != "starting" {
				printRestored(out, o.All, res)
			} else {
				fmt.Fprintf(out, "%s: starting %s%s…\n", shownName(o.All, res), res.Tool, sessionWords(res.Session))
			}
		}
	}
	// Each agent as it comes back: resumed, or started fresh.
	deadline := time.Now().Add(o.Wait)
	for len(waiting) > 0 {
		var still []started
		for _, s := range waiting {
			rec, err := s.w.Get(s.name)
			res := &results[s.at]
			switch {
			case err != nil:
				res.Action, res.Why = "failed", err.Error()
			case rec.Resume.Settled():
				res.Action, res.Why = rec.Resume.Outcome, rec.Resume.Why
				if rec.Resume.Outcome == state.ResumeFresh {
					res.Session = ""
				}
			case rec.Status == state.Exited && (rec.Resume == nil || rec.Resume.Outcome == state.ResumeFresh):
				// (While it is pending or resuming, an exit is the
				// runner's to answer with a fresh start.)
				res.Action, res.Why = "failed", "its agent exited as it started"
			default:
				still = append(still, s)
				continue
			}
			printRestored(out, o.All, *res)
		}
		waiting = still
		if len(waiting) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, s := range waiting {
		results[s.at].Why = "started; not yet shown whether it resumed ('owt list' shows it)"
		printRestored(out, o.All, results[s.at])
	}
	// The hosts' agents, each brought back by its host's owt.
	results = append(results, restoreOnHosts(o, out, o.IO.ErrOut)...)
	if !o.DryRun {
		_ = lifecycle.PublishLost(o.Tmux)
	}
	if o.JSON {
		if results == nil {
			results = []RestoreResult{}
		}
		return cmdutil.PrintJSON(o.IO.Out, results)
	}
	if len(results) == 0 {
		fmt.Fprintln(out, "no agents to restore")
	}
	failed := 0
	for _, r := range results {
		if r.Action == "failed" {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d agent(s) could not be restored", failed)
	}
	return nil
}

// restoreWorkspaces are the repositories owt restore looks at.
func restoreWorkspaces(o *restoreOptions) ([]*workspace.Workspace, error) {
	if !o.All {
		w, err := o.Workspace()
		if err != nil {
			return nil, err
		}
		return []*workspace.Workspace{w}, nil
	}
	stores, err := state.Stores()
	if err != nil {
		return nil, err
	}
	var out []*workspace.Workspace
	for _, s := range stores {
		w, err := workspace.OpenRoot(s.Repo, o.Tmux)
		if err != nil {
			fmt.Fprintf(o.IO.ErrOut, "owt: %s: %v (skipped)\n", s.Repo, err)
			continue
		}
		out = append(out, w)
	}
	return out, nil
}

func shownName(all bool, r RestoreResult) string {
	if all {
		return r.Repo + ": " + r.Name
	}
	return r.Name
}

func sessionWords(session string) string {
	if session == "" {
		return ""
	}
	return " on session " + session
}

func printRestored(out io.Writer, all bool, r RestoreResult) {
	name := cmdutil.OneLine(shownName(all, r))
	switch r.Action {
	case "resumed":
		fmt.Fprintf(out, "%s: resumed %s session %s\n", name, r.Tool, r.Session)
	case "fresh":
		fmt.Fprintf(out, "%s: started %s fresh with its task and an account of its work (%s)\n", name, r.Tool, cmdutil.OneLine(r.Why))
	case "would-resume":
		fmt.Fprintf(out, "%s: would resume %s session %s\n", name, r.Tool, r.Session)
	case "would-start-fresh":
		fmt.Fprintf(out, "%s: would start %s fresh with its task and an account of its work (%s)\n", name, r.Tool, cmdutil.OneLine(r.Why))
	default:
		fmt.Fprintf(out, "%s: %s: %s\n", name, r.Action, cmdutil.OneLine(r.Why))
	}
}
