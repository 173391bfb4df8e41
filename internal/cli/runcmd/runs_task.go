package runcmd

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/control"
	"github.com/owt-tmux/owt/internal/run"
	"github.com/owt-tmux/owt/internal/tmux"
)

// runTaskCommand is owt run retry|skip|cancel NAME TASK: the task changes
// under the run's lock and the change is logged; the monitor's engine
// reads it on its next tick.
func runTaskCommand(f *cmdutil.Factory, verb, usage string) *cli.Command {
	return &cli.Command{
		Name:      verb,
		Usage:     usage,
		ArgsUsage: "NAME TASK",
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return cmdutil.Usagef("run %s takes a run NAME and a TASK id", verb)
			}
			name, id := c.Args().Get(0), c.Args().Get(1)
			evs, err := control.TaskVerb(run.DefaultStore(), name, verb, id)
			if err != nil {
				return err
			}
			for _, ev := range evs {
				line := "run " + name + ": " + ev.Event
				if ev.Task != "" {
					line += " " + ev.Task
				}
				if ev.Detail != "" {
					line += " (" + ev.Detail + ")"
				}
				fmt.Fprintln(c.App.Writer, line)
			}
			return nil
		},
	}
}

// runResumeCommand is owt run resume NAME: the run is active again, and
// when its tmux server restarted since it was registered, it adopts the
// server owt talks to now; the engine then gives lost sessions their
// agents back.
func runResumeCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "resume",
		Usage:     "let a paused or stopped run start tasks again (after a tmux restart: adopt this server, bring lost agents back)",
		ArgsUsage: "NAME",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cmdutil.Usagef("run resume takes one NAME")
			}
			name := c.Args().First()
			tm := f.Tmux()
			server, _ := tm.ServerIdentity() // "": no server runs; its monitor adopts the run when one starts
			socket := tm.ServerSocket()
			if cur, err := run.DefaultStore().Load(name); err == nil && server != "" && cur.Server != "" && cur.Server != server && serverStillRuns(tm, cur) {
				return fmt.Errorf("run %s belongs to the tmux server at %s, which still runs: resume it there (owt -S %s run resume %s)", name, cur.Socket, cur.Socket, name)
			}
			if cur, err := run.DefaultStore().Load(name); err == nil {
				_, _ = run.DefaultStore().NoteLost(cur, time.Now()) // a finished run whose into lost work is paused: resumed below
			}
			changed, adopted := false, ""
			err := run.DefaultStore().Update(name, func(r *run.Run) ([]run.Event, error) {
				now := time.Now()
				var evs []run.Event
				ev, ok, err := r.SetState(run.Active, now)
				if err != nil {
					return nil, err
				}
				if ok {
					changed = true
					evs = append(evs, ev)
				}
				if server != "" && r.Server != server {
					adopted = server
					evs = append(evs, run.Event{At: now, Event: "adopted",
						Detail: fmt.Sprintf("tmux server %s (was %s); lost sessions get their agents back", server, orDash(r.Server))})
					r.Recover = r.Server != ""
					r.Server, r.Socket, r.UpdatedAt = server, socket, now
				}
				return evs, nil
			})
			if err != nil {
				return err
			}
			out := c.App.Writer
			switch {
			case adopted != "":
				fmt.Fprintf(out, "run %s: active, on this tmux server (%s); its monitor gives lost sessions their agents back\n", name, adopted)
			case changed:
				fmt.Fprintf(out, "run %s: active\n", name)
			default:
				fmt.Fprintf(out, "run %s is already active\n", name)
			}
			fmt.Fprintln(out, driveMonitor(tm))
			return nil
		},
	}
}

// serverStillRuns reports whether the tmux server r was registered under
// still answers with the identity r recorded: then it is that server's
// run, not one for this server to adopt.
func serverStillRuns(tm *tmux.Client, r *run.Run) bool {
	if r.Socket == "" {
		return false
	}
	id, err := (&tmux.Client{Bin: tm.Bin, Socket: r.Socket}).ServerIdentity()
	return err == nil && id == r.Server
}
