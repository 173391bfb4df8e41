package worktreecmd

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/peers"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// sendOptions is one owt send as typed: who gets which text.
type sendOptions struct {
	IO        *cmdutil.IOStreams
	Workspace func() (*workspace.Workspace, error)

	Names    []string       // the one NAME; none for a group
	Group    bool           // --all or a status flag: every agent of the repo, or those in Statuses
	Statuses []state.Status // --working, --idle, --waiting
	Task     bool           // send Names[0] its own task again (Text is empty)
	Answer   bool           // also type into agents waiting for the user
	JSON     bool
	Text     string
	// SpecStdin reads who and what from stdin as JSON (hosts.SendSpec):
	// how a local owt sends to an agent here over ssh.
	SpecStdin bool
}

// SendCommand is owt send; runF runs the options (nil: sendRun), so a
// test can see what the command line became without any tmux.
func SendCommand(f *cmdutil.Factory, runF func(*sendOptions) error) *cli.Command {
	if runF == nil {
		runF = sendRun
	}
	return &cli.Command{
		Name:      "send",
		Usage:     "type a message into agents and press Enter (TEXT '-' reads stdin)",
		ArgsUsage: "[NAME] TEXT... | NAME --task",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "task", Usage: "send NAME its task again (after a first turn that failed, or a task that never arrived)"},
			&cli.BoolFlag{Name: "answer", Usage: "also type into agents waiting for you: the text answers their prompt (a menu takes one key: 1, 2, y, n)"},
			&cli.BoolFlag{Name: "all", Usage: "every running agent of this repo"},
			&cli.BoolFlag{Name: "working", Usage: "every working agent"},
			&cli.BoolFlag{Name: "idle", Usage: "every idle agent"},
			&cli.BoolFlag{Name: "waiting", Usage: "every agent waiting for you (with --answer: the text answers their prompts)"},
			&cli.BoolFlag{Name: "spec-stdin", Hidden: true, Usage: "read NAME, TEXT and --answer as JSON from stdin (how owt sends over ssh)"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			opts := &sendOptions{IO: f.IO, Workspace: f.OpenWorkspace, Answer: c.Bool("answer"), JSON: c.Bool("json"), Task: c.Bool("task")}
			if c.Bool("spec-stdin") {
				if c.NArg() > 0 || opts.Answer || opts.Task || c.Bool("all") || c.Bool("working") || c.Bool("idle") || c.Bool("waiting") {
					return cmdutil.Usagef("--spec-stdin takes everything from stdin: give no NAME, TEXT or other flag but --json")
				}
				if err := opts.readSpec(); err != nil {
					return err
				}
				return runF(opts)
			}
			if err := opts.parse(c.Args().Slice(), c.Bool("all"), c.Bool("working"), c.Bool("idle"), c.Bool("waiting")); err != nil {
				return err
			}
			return runF(opts)
		},
	}
}

// parse fills in who and what from the arguments and the group flags, and
// refuses a combination that would type text where it does not belong.
func (o *sendOptions) parse(args []string, all, working, idle, waiting bool) error {
	for i, on := range []bool{working, idle, waiting} {
		if on {
			o.Statuses = append(o.Statuses, []state.Status{state.Working, state.Idle, state.Waiting}[i])
		}
	}
	o.Group = all || len(o.Statuses) > 0
	if waiting && !o.Answer {
		// Choosing agents by status never answers their prompts.
		return cmdutil.Usagef("send --waiting picks agents that wait on a prompt, and typed text would answer it: add --answer to answer their prompts, or answer each there (owt switch NAME)")
	}
	if o.Answer && (all || working || idle) {
		// Only a prompt takes an answer: typed into the others it
		// would become a new prompt.
		return cmdutil.Usagef("send --answer answers prompts: name the agent (owt send --answer NAME TEXT) or pick the waiting ones with --waiting, not --all/--working/--idle")
	}
	if o.Task {
		if o.Group || len(args) != 1 {
			return cmdutil.Usagef("send --task takes one NAME and no TEXT: it sends that agent's own task")
		}
		o.Names = args
		return nil
	}
	if !o.Group {
		if len(args) < 2 {
			return cmdutil.Usagef("send needs NAME and TEXT (or --all/--working/--idle/--waiting and TEXT)")
		}
		o.Names, args = args[:1], args[1:]
		if len(args) > 1 && args[0] == "--" {
			args = args[1:] // owt send NAME -- TEXT
		}
	}
	if len(args) == 0 {
		return cmdutil.Usagef("send needs TEXT")
	}
	o.Text = strings.Join(args, " ")
	if len(args) == 1 && args[0] == "-" {
		b, err := io.ReadAll(o.IO.In)
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		o.Text = strings.TrimRight(string(b), "\r\n")
	}
	if strings.TrimSpace(o.Text) == "" {
		return cmdutil.Usagef("nothing to send: TEXT is empty")
	}
	if o.Answer && strings.ContainsAny(o.Text, "\r\n") {
		// A dialog takes a key or one line; a newline in it would
		// answer the next dialog too.
		return cmdutil.Usagef("send --answer takes one line (a menu's key: 1, 2, y, n, or one line of text); TEXT has a line break")
	}
	return nil
}

// sendRun types the text into the chosen agents and reports each.
func sendRun(o *sendOptions) error {
	if o.Task {
		return resendTask(o)
	}
	// An agent's own owt send (its shell tool: a swarm's fallback for
	// peers) is the agent's message, not the user's: signed as peers'
	// messages are; and it answers no other agent's prompt.
	text, me, err := peers.AsCaller(os.Getpid(), o.Text)
	if err != nil {
		return err
	}
	if me != nil && o.Answer {
		return fmt.Errorf("this runs inside the agent %s, and an agent answers no prompt of another agent's: the user does", me.Name)
	}
	o.Text = text
	if routed, err := o.sendOnHost(); routed {
		return err
	}
	w, err := o.Workspace()
	if err != nil {
		return err
	}
	recs, err := w.Select(o.Names, o.Group, o.Statuses)
	if err != nil {
		return err
	}
	if o.Group {
		if recs = o.sendable(recs); len(recs) == 0 {
			return fmt.Errorf("no running agent matches")
		}
	}
	return o.report(send.EachWith(w, recs, untrusted.From(o.Text), send.Options{Answer: o.Answer}))
}

// sendable is the agents of a group send that can take the text. A group
// send skips agents that cannot; naming one of them explicitly is an
// error instead. Agents waiting for the user are skipped too, unless
// --answer says to answer their prompts with the text.
func (o *sendOptions) sendable(recs []*state.Record) []*state.Record {
	var kept []*state.Record
	for _, r := range recs {
		switch {
		case r.NoAgent || r.Status == state.Exited:
		case r.Status == state.Waiting && !o.Answer:
			// Said, so "sent to …" for the others is not read as all.
			fmt.Fprintf(o.IO.ErrOut, "owt: skipped %s: it waits for you (see 'owt status %s')\n", r.Name, r.Name)
		default:
			kept = append(kept, r)
		}
	}
	return kept
}

// report prints what became of each send; an agent that did not get the
// text fails the command (its own error when it was the only one).
func (o *sendOptions) report(results []send.Result) error {
	failed := 0
	for _, r := range results {
		if r.Err != "" {
			failed++
		}
	}
	if o.JSON {
		if err := cmdutil.PrintJSON(o.IO.Out, results); err != nil {
			return err
		}
	} else {
		for _, r := range results {
			if r.Sent {
				fmt.Fprintf(o.IO.Out, "sent to %s\n", r.Name)
			} else if r.Answered {
				fmt.Fprintf(o.IO.Out, "answered %s's prompt\n", r.Name)
			} else if len(results) > 1 {
				fmt.Fprintf(o.IO.ErrOut, "owt: %s\n", r.Err)
			}
		}
	}
	switch {
	case failed == 0:
		return nil
	case len(results) == 1:
		return fmt.Errorf("%s", results[0].Err)
	default:
		return cmdutil.ExitWith(cmdutil.ExitError)
	}
}

// resendTask sends the agent o names the task it was created with.
func resendTask(o *sendOptions) error {
	name := o.Names[0]
	w, err := o.Workspace()
	if err != nil {
		return err
	}
	rec, err := w.Get(name)
	if err != nil {
		return err
	}
	if strings.TrimSpace(rec.Task) == "" {
		return fmt.Errorf("%s has no task to send (it was made without one, or its record was rebuilt)", name)
	}
	res := send.Each(w, []*state.Record{rec}, untrusted.From(rec.Task))[0]
	if o.JSON {
		if err := cmdutil.PrintJSON(o.IO.Out, []any{res}); err != nil {
			return err
		}
	} else if res.Sent {
		fmt.Fprintf(o.IO.Out, "sent %s its task again\n", name)
	}
	if !res.Sent {
		return fmt.Errorf("%s", res.Err)
	}
	return nil
}
