package worktreecmd

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/outbox"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/status"
)

// WhyCommand is owt why NAME: the evidence behind an agent's status.
func WhyCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "why",
		Usage:     "show the evidence behind an agent's status: hook events, the screen rule that matched, its run task, what owt owes it",
		ArgsUsage: "NAME",
		Flags:     []cli.Flag{cmdutil.JSONFlag()},
		Action: func(c *cli.Context) error {
			if c.NArg() == 1 {
				if ran, err := onHost(f, c, c.Args().First(), time.Minute); ran {
					return err
				}
			}
			w, rec, err := f.NamedRecord(c, "why")
			if err != nil {
				return err
			}
			v, err := status.Explain(w, rec.Name, run.DefaultStore(), outbox.Default())
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, v)
			}
			printWhy(c.App.Writer, v)
			return nil
		},
	}
}

// printWhy writes owt why: the one-line summary, then a section per kind
// of evidence. Every word an agent or its screen wrote is drawn inert.
func printWhy(out io.Writer, v status.Why) {
	fmt.Fprintf(out, "%s: %s\n", v.Name, v.Summary)
	stamp := func(t time.Time) string { return t.Local().Format("15:04:05") }
	for _, f := range v.SetupFailed {
		fmt.Fprintf(out, "setup failed before the agent started: %s\n", cmdutil.Shown(f))
	}

	fmt.Fprintf(out, "\nhook events (those that set or refreshed the status, oldest first, at most %d):\n", state.HookRing)
	if len(v.Hooks) == 0 {
		fmt.Fprintln(out, "  none recorded")
	}
	for _, h := range v.Hooks {
		ev := h.Event
		if h.Detail != "" {
			ev += " (" + h.Detail + ")"
		}
		fmt.Fprintf(out, "  %s  %-34s → %s\n", stamp(h.At), cmdutil.Shown(ev), h.Status)
	}

	fmt.Fprintln(out, "\nscreen:")
	if s := v.Screen; s == nil {
		fmt.Fprintln(out, "  no reading of the screen speaks for this status")
	} else {
		what := "confirmed " + string(s.Status)
		if s.Set {
			what = "set " + string(s.Status)
			if s.Was != "" {
				what += ", correcting " + string(s.Was)
				if s.WasSource != "" {
					what += " from " + string(s.WasSource)
				}
			}
		}
		if s.Interrupted {
			what += "; the turn was interrupted"
			if !s.Mark.Empty() {
				what += " ('" + s.Mark.Short(80) + "')"
			}
		}
		fmt.Fprintf(out, "  %s at %s by rule %s (%s)\n", what, stamp(s.At), s.Rule, s.RuleText)
		for _, l := range s.Lines {
			fmt.Fprintf(out, "  │ %s\n", l.Line())
		}
	}

	if t := v.Task; t != nil {
		fmt.Fprintf(out, "\nrun task: %s of run %s, %s since %s (attempt %d)\n", cmdutil.Shown(t.ID), cmdutil.Shown(t.Run), t.State, stamp(t.Since), t.Attempt)
		if t.Why != "" {
			fmt.Fprintf(out, "  why: %s\n", cmdutil.Shown(t.Why))
		}
		if t.Owed != "" {
			fmt.Fprintf(out, "  owed to the agent: %s\n", t.Owed)
		}
		if t.Failure != nil {
			fmt.Fprintf(out, "  last failure: %s: %s\n", t.Failure.Class, t.Failure.Error.Short(100))
		}
		if e := t.Evidence; e != nil {
			fmt.Fprintf(out, "  the judge saw (%s): %s\n", stamp(e.At), judged(e))
		} else {
			fmt.Fprintln(out, "  the judge has not looked yet")
		}
	}

	fmt.Fprintln(out, "\nreactions and messages owed:")
	if len(v.Reactions) == 0 && len(v.Outbox) == 0 {
		fmt.Fprintln(out, "  none pending")
	}
	for _, r := range v.Reactions {
		line := fmt.Sprintf("  %s: %d attempt(s)", r.Name, r.Attempts)
		if r.Pending != "" {
			line += ", a message pending"
		}
		if r.NeedsYou != "" {
			line += ", needs you: " + cmdutil.Shown(r.NeedsYou)
		}
		fmt.Fprintln(out, line)
	}
	for _, m := range v.Outbox {
		from := m.Kind
		if m.From != "" {
			from += " from " + cmdutil.Shown(m.From)
		}
		line := fmt.Sprintf("  queued %s (%s): %s", stamp(m.QueuedAt), from, m.Text.Short(80))
		if m.Held != "" {
			line += " — held: " + cmdutil.Shown(m.Held)
		}
		fmt.Fprintln(out, line)
	}
}

// judged is what the run's judge saw, in a line.
func judged(e *run.Evidence) string {
	var parts []string
	if e.Signal != "" {
		parts = append(parts, "signal "+e.Signal)
	} else {
		parts = append(parts, "no signal yet")
	}
	if e.Waiting {
		parts = append(parts, "waiting")
	}
	parts = append(parts, fmt.Sprintf("%d commit(s)", e.Commits))
	if e.NoChange {
		parts = append(parts, "changing nothing")
	}
	if e.Dirty {
		parts = append(parts, fmt.Sprintf("%d uncommitted file(s)", len(e.Uncommitted)))
	}
	if e.Checks != "" {
		parts = append(parts, "checks "+cmdutil.Shown(e.Checks))
	}
	if !e.Summary.Empty() {
		parts = append(parts, "said: "+e.Summary.Short(60))
	}
	return strings.Join(parts, ", ")
}
