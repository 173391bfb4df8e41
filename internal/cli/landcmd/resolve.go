package landcmd

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/resolve"
	"github.com/owt-tmux/owt/internal/untrusted"
)

// resolveOutcome is owt resolve --json: what was started, or how a
// resolve under way stands.
type resolveOutcome struct {
	Name    string           `json:"name"`
	Started *resolve.Started `json:"started,omitempty"`
	Verdict *resolve.Verdict `json:"verdict,omitempty"`
	Nothing string           `json:"nothing,omitempty"` // no conflict predicted: why nothing was done
}

// ResolveCommand is owt resolve NAME: the conflicts the branch would have
// with its base are merged into its own worktree and handed to its agent;
// again (or --status), owt checks the agent's work and says whether it is
// ready to ship.
func ResolveCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "resolve",
		Usage:     "let the agent resolve its predicted conflicts with the base, in its own worktree; again, or --status, checks its work",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "status", Usage: "only check the resolve under way and say whether it is ready to ship (exit 1 when not)"},
			&cli.StringFlag{Name: "into", Usage: "the `BRANCH` to merge in (default: the worktree's base)"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("resolve takes one NAME")
			}
			if c.Bool("status") && c.IsSet("into") {
				return cmdutil.Usagef("resolve --status checks the resolve under way; --into is for starting one")
			}
			w, err := f.OpenWorkspace()
			if err != nil {
				return err
			}
			rec, err := w.Get(c.Args().First())
			if err != nil {
				return err
			}
			out := resolveOutcome{Name: rec.Name}
			var runErr error
			if c.Bool("status") {
				v, err := control.ResolveStatus(w, rec)
				if err != nil {
					return err
				}
				out.Verdict = &v
				if !v.Ready {
					runErr = cmdutil.ExitWith(cmdutil.ExitError)
				}
			} else {
				st, v, started, err := control.Resolve(w, rec, resolve.Options{Into: c.String("into")})
				switch {
				case errors.Is(err, resolve.ErrNoConflict):
					out.Nothing = err.Error()
				case err != nil:
					return err
				case started:
					out.Started = &st
					if st.How == "" {
						runErr = fmt.Errorf("%s: merged %s in and left the conflicts in its worktree, but its agent was not told: %s; 'owt resolve %s' tells it again",
							rec.Name, st.Target, st.Untold, rec.Name)
					}
				default:
					out.Verdict = &v
					if !v.Ready {
						runErr = cmdutil.ExitWith(cmdutil.ExitError)
					}
				}
			}
			if c.Bool("json") {
				if err := cmdutil.PrintJSON(c.App.Writer, out); err != nil {
					return err
				}
				return runErr
			}
			wr := c.App.Writer
			switch {
			case out.Nothing != "":
				fmt.Fprintf(wr, "%s: %s\n", rec.Name, out.Nothing)
			case out.Started != nil:
				st := out.Started
				// File names are git's, from the agent's commits: drawn inert.
				fmt.Fprintln(wr, cmdutil.OneLine(fmt.Sprintf("%s: merged %s (%.12s) into %s in its worktree %s; conflicts left in %d file(s): %s",
					rec.Name, st.Target, st.Onto, st.Branch, rec.Path, len(st.Files), untrusted.Some(st.Files, 8))))
				switch st.How {
				case "typed":
					fmt.Fprintf(wr, "%s: its agent has the conflicts and is told to resolve them, run the tests and commit; 'owt resolve %s --status' checks its work\n", rec.Name, rec.Name)
				case "restarted":
					fmt.Fprintf(wr, "%s: its agent had exited: started again there with the conflicts to resolve; 'owt resolve %s --status' checks its work\n", rec.Name, rec.Name)
				}
			case out.Verdict != nil:
				fmt.Fprintln(wr, cmdutil.OneLine(out.Verdict.Line()))
			}
			return runErr
		},
	}
}
