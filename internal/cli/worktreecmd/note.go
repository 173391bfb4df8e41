package worktreecmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/notes"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// noteRun is the JSON of owt note.
type noteRun struct {
	Note      string         `json:"note"`
	Worktrees []notes.Result `json:"worktrees"`
	Sent      []send.Result  `json:"sent,omitempty"`
}

func NoteCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "note",
		Usage:     "shared context for every agent, in each tool's local untracked instructions file (no TEXT: show it)",
		ArgsUsage: "[TEXT... | -]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "clear", Usage: "remove the note from every worktree"},
			&cli.BoolFlag{Name: "send", Usage: "also type it into every idle agent"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			// The note is the user's word to every agent: an agent's
			// shell neither writes nor clears it (its own notes go
			// signed, through share_note).
			if len(args) > 0 || c.Bool("clear") {
				if me, err := lifecycle.CallingAgent(os.Getpid()); err != nil {
					return err
				} else if me != nil {
					return fmt.Errorf("this runs inside the agent %s, and the note is the user's word to every agent: an agent shares its own with share_note (owt mcp), signed", me.Name)
				}
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			if c.Bool("clear") {
				if len(args) > 0 || c.Bool("send") {
					return cmdutil.Usagef("note --clear takes no TEXT and no --send")
				}
				had, err := notes.Of(w).Note()
				if err != nil {
					return err
				}
				results, err := notes.Of(w).ClearNote()
				if err != nil {
					return err
				}
				run := noteRun{Worktrees: orEmpty(results)}
				if err := printNote(c, run, "removed the note from"); err != nil || c.Bool("json") {
					return err
				}
				if !removedAny(run.Worktrees) {
					fmt.Fprintln(c.App.Writer, nothingCleared(had))
				}
				return nil
			}
			if len(args) == 0 {
				if c.Bool("send") {
					return cmdutil.Usagef("note --send needs TEXT")
				}
				text, err := notes.Of(w).Note()
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return cmdutil.PrintJSON(c.App.Writer, noteRun{Note: text, Worktrees: []notes.Result{}})
				}
				if text == "" {
					fmt.Fprintln(f.IO.ErrOut, "no note set; set one with: owt note \"TEXT\"")
					return nil
				}
				fmt.Fprintln(c.App.Writer, inert(text))
				return nil
			}
			text := strings.Join(args, " ")
			if len(args) == 1 && args[0] == "-" {
				b, err := io.ReadAll(f.IO.In)
				if err != nil {
					return fmt.Errorf("read stdin: %w", err)
				}
				text = string(b)
			}
			if strings.TrimSpace(text) == "" {
				return cmdutil.Usagef("nothing to note: TEXT is empty ('owt note --clear' removes the note)")
			}
			results, err := notes.Of(w).SetNote(text)
			if errors.Is(err, notes.ErrBadNote) {
				return cmdutil.Usagef("%v", err)
			}
			if err != nil {
				return err
			}
			run := noteRun{Note: strings.TrimSpace(text), Worktrees: orEmpty(results)}
			if c.Bool("send") {
				idle, err := w.Select(nil, true, []state.Status{state.Idle})
				if err != nil {
					return err
				}
				var agents []*state.Record
				for _, r := range idle {
					if !r.NoAgent {
						agents = append(agents, r)
					}
				}
				run.Sent = send.Each(w, agents, untrusted.From(run.Note))
			}
			if err := printNote(c, run, "wrote the note into"); err != nil {
				return err
			}
			return noteMissed(run)
		},
	}
}

// noteMissed is the error of a note that reached nothing: worktrees exist
// but each was skipped (printed above), or a --send did not get through.
func noteMissed(run noteRun) error {
	var notSent []string
	for _, s := range run.Sent {
		if !s.Sent {
			notSent = append(notSent, s.Name)
		}
	}
	if len(notSent) > 0 {
		return fmt.Errorf("the note was not sent to %s", strings.Join(notSent, ", "))
	}
	if len(run.Worktrees) == 0 || len(run.Sent) > 0 {
		return nil
	}
	for _, r := range run.Worktrees {
		if r.Action == "written" || r.Action == "unchanged" {
			return nil
		}
	}
	return fmt.Errorf("the note was written into none of the %d worktree(s): each was skipped; it stays set for worktrees created later, and 'owt note --send TEXT' types it into idle agents", len(run.Worktrees))
}

// removedAny reports whether a clear removed the note from a worktree.
func removedAny(rs []notes.Result) bool {
	for _, r := range rs {
		if r.Action == "removed" {
			return true
		}
	}
	return false
}

// nothingCleared is what owt note --clear says when no worktree held the
// note: whether there was a note to forget at all.
func nothingCleared(had string) string {
	if had == "" {
		return "no note was set: nothing to remove"
	}
	return "cleared the note; no worktree held it"
}

// inert draws the controls of a stored note (ESC, BEL, CR…) as visible
// escapes ("\x1b"), so showing it never drives the terminal.
func inert(text string) string {
	if strings.IndexFunc(text, untrusted.IsControl) < 0 {
		return text
	}
	var b strings.Builder
	for _, r := range text {
		if untrusted.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func orEmpty(rs []notes.Result) []notes.Result {
	if rs == nil {
		return []notes.Result{}
	}
	return rs
}

func printNote(c *cli.Context, run noteRun, verb string) error {
	if c.Bool("json") {
		return cmdutil.PrintJSON(c.App.Writer, run)
	}
	out := c.App.Writer
	for _, r := range run.Worktrees {
		switch r.Action {
		case "written", "removed":
			fmt.Fprintf(out, "%s %s\n", verb, r.File)
		case "unchanged":
			if r.File != "" {
				fmt.Fprintf(out, "%s: %s already up to date\n", r.Name, r.File)
			}
		case "skipped":
			fmt.Fprintf(out, "%s: skipped: %s\n", r.Name, r.Reason)
		}
	}
	if len(run.Worktrees) == 0 && run.Note != "" {
		fmt.Fprintln(out, "no worktrees now; worktrees created later get the note")
	}
	for _, s := range run.Sent {
		if s.Sent {
			fmt.Fprintf(out, "sent to %s\n", s.Name)
		} else {
			fmt.Fprintf(out, "%s: not sent: %s\n", s.Name, s.Err)
		}
	}
	return nil
}
