package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
)

func sendCommand() *cli.Command {
	return &cli.Command{
		Name:         "send",
		BashComplete: completeNames,
		Usage:        "type a message into agents and press Enter (TEXT '-' reads stdin)",
		ArgsUsage:    "[NAME] TEXT... | NAME --task",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "task", Usage: "send NAME its task again (after a first turn that failed, or a task that never arrived)"},
			&cli.BoolFlag{Name: "answer", Usage: "also type into agents waiting for you: the text answers their prompt (a menu takes one key: 1, 2, y, n)"},
			&cli.BoolFlag{Name: "all", Usage: "every running agent of this repo"},
			&cli.BoolFlag{Name: "working", Usage: "every working agent"},
			&cli.BoolFlag{Name: "idle", Usage: "every idle agent"},
			&cli.BoolFlag{Name: "waiting", Usage: "every agent waiting for you (with --answer: the text answers their prompts)"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			var statuses []state.Status
			for _, s := range []state.Status{state.Working, state.Idle, state.Waiting} {
				if c.Bool(string(s)) {
					statuses = append(statuses, s)
				}
			}
			group := c.Bool("all") || len(statuses) > 0
			if c.Bool("waiting") && !c.Bool("answer") {
				// Choosing agents by status never answers their prompts.
				return usagef("send --waiting picks agents that wait on a prompt, and typed text would answer it: add --answer to answer their prompts, or answer each there (owt switch NAME)")
			}
			if c.Bool("answer") && (c.Bool("all") || c.Bool("working") || c.Bool("idle")) {
				// Only a prompt takes an answer: typed into the others it
				// would become a new prompt.
				return usagef("send --answer answers prompts: name the agent (owt send --answer NAME TEXT) or pick the waiting ones with --waiting, not --all/--working/--idle")
			}
			args := c.Args().Slice()
			if c.Bool("task") {
				if group || len(args) != 1 {
					return usagef("send --task takes one NAME and no TEXT: it sends that agent's own task")
				}
				return resendTask(c, args[0])
			}
			var names []string
			if !group {
				if len(args) < 2 {
					return usagef("send needs NAME and TEXT (or --all/--working/--idle/--waiting and TEXT)")
				}
				names, args = args[:1], args[1:]
				if len(args) > 1 && args[0] == "--" {
					args = args[1:] // owt send NAME -- TEXT
				}
			}
			if len(args) == 0 {
				return usagef("send needs TEXT")
			}
			text := strings.Join(args, " ")
			if len(args) == 1 && args[0] == "-" {
				b, err := io.ReadAll(os.Stdin)
				if err != nil {
					return fmt.Errorf("read stdin: %w", err)
				}
				text = strings.TrimRight(string(b), "\r\n")
			}
			if strings.TrimSpace(text) == "" {
				return usagef("nothing to send: TEXT is empty")
			}
			if c.Bool("answer") && strings.ContainsAny(text, "\r\n") {
				// A dialog takes a key or one line; a newline in it would
				// answer the next dialog too.
				return usagef("send --answer takes one line (a menu's key: 1, 2, y, n, or one line of text); TEXT has a line break")
			}
			w, err := openWorkspace()
			if err != nil {
				return err
			}
			recs, err := w.Select(names, group, statuses)
			if err != nil {
				return err
			}
			if group {
				// A group send skips agents that cannot take text; naming
				// one of them explicitly is an error instead.
				// Agents waiting for the user are skipped too, unless
				// --answer says to answer their prompts with the text.
				answer := c.Bool("answer")
				kept := recs[:0]
				for _, r := range recs {
					switch {
					case r.NoAgent || r.Status == state.Exited:
					case r.Status == state.Waiting && !answer:
						// Said, so "sent to …" for the others is not read as all.
						fmt.Fprintf(os.Stderr, "owt: skipped %s: it waits for you (see 'owt status %s')\n", r.Name, r.Name)
					default:
						kept = append(kept, r)
					}
				}
				recs = kept
				if len(recs) == 0 {
					return fmt.Errorf("no running agent matches")
				}
			}
			results := send.EachWith(w, recs, text, send.Options{Answer: c.Bool("answer")})
			failed := 0
			for _, r := range results {
				if r.Err != "" {
					failed++
				}
			}
			if c.Bool("json") {
				if err := printJSON(c.App.Writer, results); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					if r.Sent {
						fmt.Fprintf(c.App.Writer, "sent to %s\n", r.Name)
					} else if r.Answered {
						fmt.Fprintf(c.App.Writer, "answered %s's prompt\n", r.Name)
					} else if len(results) > 1 {
						fmt.Fprintf(os.Stderr, "owt: %s\n", r.Err)
					}
				}
			}
			switch {
			case failed == 0:
				return nil
			case len(results) == 1:
				return fmt.Errorf("%s", results[0].Err)
			default:
				return exitWith(ExitError)
			}
		},
	}
}

// resendTask sends the agent called name the task it was created with.
func resendTask(c *cli.Context, name string) error {
	w, err := openWorkspace()
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
	res := send.Each(w, []*state.Record{rec}, rec.Task)[0]
	if c.Bool("json") {
		if err := printJSON(c.App.Writer, []any{res}); err != nil {
			return err
		}
	} else if res.Sent {
		fmt.Fprintf(c.App.Writer, "sent %s its task again\n", name)
	}
	if !res.Sent {
		return fmt.Errorf("%s", res.Err)
	}
	return nil
}
