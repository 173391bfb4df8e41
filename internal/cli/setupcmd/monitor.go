package setupcmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/monitor"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

func MonitorCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "monitor",
		Usage: "watch agent panes, keep status right and notify (one per tmux server; owt new starts it)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "socket", Usage: "the tmux server's socket `PATH` (default: the server owt talks to)"},
			&cli.DurationFlag{Name: "interval", Value: monitor.DefaultInterval, Usage: "`DURATION` between looks at the panes"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("monitor takes no arguments")
			}
			daemon.CloseInherited()
			socket := tmux.CanonicalSocket(c.String("socket"))
			if c.String("socket") == "" {
				socket = f.Tmux().ServerSocket()
			}
			// Started as a daemon, its stderr is owt's log: follow the
			// log when it is moved aside or removed, rather than writing
			// into a file nobody sees any more.
			var log io.Writer = f.IO.ErrOut
			file, ok := f.IO.ErrOut.(*os.File)
			daemonized := ok && state.IsLog(file)
			if daemonized {
				log = &state.LogWriter{}
			}
			err := monitor.Run(monitor.Options{Socket: socket, Interval: c.Duration("interval"), Log: log})
			var updated *monitor.UpdatedError
			if errors.As(err, &updated) {
				// Run has let go of everything (lock, pid file, streams):
				// the new owt takes this process over, with the same
				// arguments, log and pid.
				err = fmt.Errorf("start the updated owt: %w", syscall.Exec(updated.Exe, os.Args, os.Environ()))
			}
			if err != nil && daemonized {
				// Its stderr is owt.log: the error goes in as a line of the
				// log's format, not as owt's own text line.
				owtlog.New(log, "monitor").Errorf(owtlog.Fields{Event: "monitor"}, "%v", err)
				return cmdutil.ExitWith(cmdutil.ExitError)
			}
			return err
		},
	}
}
