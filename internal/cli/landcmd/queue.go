package landcmd

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/land"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
	"github.com/owt-tmux/owt/internal/workspace"
)

// queueRun is the JSON of owt queue --ship.
type queueRun struct {
	Shipped []landed   `json:"shipped"`
	Stopped string     `json:"stopped,omitempty"` // why it stopped early
	Left    land.Queue `json:"left"`
}

// queueOptions is one owt queue: show the queue, or ship it (--ship).
type queueOptions struct {
	IO        *cmdutil.IOStreams
	Workspace func() (*workspace.Workspace, error)

	Ship bool
	Yes  bool // do not ask before shipping
	JSON bool
}

// QueueCommand is owt queue; runF runs the options (nil: runQueue).
func QueueCommand(f *cmdutil.Factory, runF func(*queueOptions) error) *cli.Command {
	if runF == nil {
		runF = runQueue
	}
	return &cli.Command{
		Name:  "queue",
		Usage: "the finished worktrees in the order that merges most of them cleanly (--ship ships them in it)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "ship", Usage: "ship them in that order, re-checking after each, stopping at the first conflict"},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("queue takes no arguments")
			}
			return runF(&queueOptions{IO: f.IO, Workspace: f.OpenWorkspace, Ship: c.Bool("ship"), Yes: c.Bool("yes"), JSON: c.Bool("json")})
		},
	}
}

// runQueue prints the queue, or with --ship shows it, asks, and ships it.
func runQueue(o *queueOptions) error {
	w, err := o.Workspace()
	if err != nil {
		return err
	}
	q, err := mergeContext(w).BuildQueue()
	if err != nil {
		return err
	}
	// The hosts' finished agents, after every worktree here.
	remote, skipped := control.RemoteQueue(w)
	q.Entries = append(q.Entries, remote...)
	q.Skipped = append(q.Skipped, skipped...)
	if !o.Ship {
		if o.JSON {
			return cmdutil.PrintJSON(o.IO.Out, q)
		}
		printQueue(o.IO.Out, q)
		return nil
	}
	if len(q.Entries) == 0 {
		return errors.New("nothing to ship: no idle or exited worktree has changes")
	}
	if !o.JSON {
		printQueue(o.IO.Out, q)
	}
	if err := askFirst(o.IO, o.Yes, "queue --ship", nil, fmt.Sprintf("Ship these %d worktree(s) in this order?", len(q.Entries)), "not shipped"); err != nil {
		return err
	}
	// Only what was shown and confirmed: a worktree that turns idle
	// or gains changes while the queue runs waits for the next run.
	confirmed := map[string]string{}
	for _, e := range q.Entries {
		if e.Host == "" {
			confirmed[e.Name] = e.Branch
		}
	}
	return shipQueue(o, w, confirmed, remote)
}

// shipQueue ships the head of the queue, rebuilds the queue from what git
// says now, and repeats, until it is empty or its head would conflict.
// Only the worktrees in confirmed (name → branch, the list the user said
// yes to) are ever shipped or considered. Then the hosts' agents the user
// said yes to (remote) ship in their order, each looked at afresh, until
// one would conflict or is refused.
func shipQueue(o *queueOptions, w *workspace.Workspace, confirmed map[string]string, remote []land.QueueEntry) error {
	run := queueRun{Shipped: []landed{}}
	var failure error
	for {
		q, err := mergeContext(w).BuildQueueOf(func(r *state.Record) bool {
			branch, ok := confirmed[r.Name]
			return ok && branch == r.Branch
		})
		if err != nil {
			failure = err
			break
		}
		run.Left = q
		if len(q.Entries) == 0 {
			break
		}
		head := q.Entries[0]
		if !head.Clean {
			failure = fmt.Errorf("stopped at %s: it conflicts with %s in %s; left: %s",
				head.Name, head.Base, untrusted.Some(head.Conflicts, workspace.ListedMax), queueNames(q.Entries))
			break
		}
		rec, err := w.Get(head.Name)
		if err != nil {
			failure = err
			break
		}
		// control.Ship refuses a turn begun since the queue was built (the
		// record lags the screen): it is not shipped from under the agent.
		out, err := control.Ship(w, rec, "", control.LandOptions{ReviewLog: o.IO.ErrOut})
		printRefusal(o.IO.ErrOut, err)
		if out.Name == "" {
			failure = fmt.Errorf("stopped at %s: %w; left: %s", head.Name, err, queueNames(q.Entries))
			break
		}
		run.Shipped = append(run.Shipped, out)
		if !o.JSON {
			printLanding(o.IO.Out, out)
		}
		if out.Kept != "" {
			failure = fmt.Errorf("shipped %s, but %s; stopped", out.Name, out.Kept)
			break
		}
	}
	if failure == nil {
		failure = shipRemoteQueue(o, w, remote, &run)
	}
	if failure != nil {
		run.Stopped = failure.Error()
	}
	if o.JSON {
		if err := cmdutil.PrintJSON(o.IO.Out, run); err != nil {
			return err
		}
	}
	if failure != nil {
		return failure
	}
	if !o.JSON {
		fmt.Fprintf(o.IO.Out, "shipped %d worktree(s); the queue is empty\n", len(run.Shipped))
	}
	return nil
}

// shipRemoteQueue ships the hosts' queued agents in order (control.
// ShipQueued), stopping at the first predicted conflict or refusal.
func shipRemoteQueue(o *queueOptions, w *workspace.Workspace, remote []land.QueueEntry, run *queueRun) error {
	for i, e := range remote {
		run.Left.Entries = remote[i:]
		if !e.Clean {
			return fmt.Errorf("stopped at %s@%s: it conflicts with %s in %s (as %s predicts); left: %s",
				e.Name, e.Host, e.Base, untrusted.Some(e.Conflicts, workspace.ListedMax), e.Host, queueNames(remote[i:]))
		}
		out, err := control.ShipQueued(w, e, control.LandOptions{ReviewLog: o.IO.ErrOut})
		if out.Name == "" {
			return fmt.Errorf("stopped at %s@%s: %w; left: %s", e.Name, e.Host, err, queueNames(remote[i:]))
		}
		out.Name = e.Name + "@" + e.Host
		run.Shipped = append(run.Shipped, out)
		if !o.JSON {
			printLanding(o.IO.Out, out)
		}
		if err != nil {
			return fmt.Errorf("shipped %s@%s, but %v; stopped", e.Name, e.Host, err)
		}
	}
	run.Left.Entries = []land.QueueEntry{}
	return nil
}

func queueNames(es []land.QueueEntry) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = queueName(e)
	}
	return strings.Join(names, ", ")
}

func printQueue(out io.Writer, q land.Queue) {
	if len(q.Entries) == 0 {
		fmt.Fprintln(out, "the queue is empty: no idle or exited worktree has changes")
	} else {
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "#\tNAME\tBRANCH\tSTATUS\tCOMMITS\tUNCOMMITTED\tLINES\tOVERLAPS\tPREDICTION")
		for i, e := range q.Entries {
			pred := "merges cleanly"
			if !e.Clean {
				pred = "conflicts in " + untrusted.Some(e.Conflicts, workspace.ListedMax)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", i+1, queueName(e), e.Branch, e.Status, e.Ahead, e.Uncommitted, e.Size, e.Overlaps, pred)
		}
		_ = tw.Flush()
	}
	for _, s := range q.Skipped {
		fmt.Fprintf(out, "not queued: %s (%s)\n", s.Name, s.Reason)
	}
}

// queueName is an entry's name as the user types it: NAME, or NAME@HOST.
func queueName(e land.QueueEntry) string {
	if e.Host != "" {
		return e.Name + "@" + e.Host
	}
	return e.Name
}
