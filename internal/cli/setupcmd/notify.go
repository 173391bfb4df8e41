package setupcmd

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/daemon"
	"github.com/owt-tmux/owt/internal/notify"
)

// testTimeout bounds owt notify test as a whole.
const testTimeout = 30 * time.Second

// NotifyCommand is owt notify: the notice channels.
func NotifyCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "notify",
		Usage: "the channels that tell you an agent changed status: send a test notice",
		Subcommands: []*cli.Command{
			{
				Name:      "test",
				Usage:     "send a sample notice through each configured channel (or the one named) and say what happened",
				ArgsUsage: "[CHANNEL]",
				Flags:     []cli.Flag{cmdutil.JSONFlag()},
				Action: func(c *cli.Context) error {
					if c.NArg() > 1 {
						return cmdutil.Usagef("notify test takes at most one CHANNEL")
					}
					return notifyTestRun(f, c.Args().First(), c.Bool("json"))
				},
			},
		},
	}
}

func notifyTestRun(f *cmdutil.Factory, name string, asJSON bool) error {
	if name != "" && !slices.Contains(notify.Names, name) {
		return cmdutil.Usagef("%v", notify.UnknownChannelError{Name: name})
	}
	cfg, root, err := cmdutil.LoadConfig()
	if err != nil {
		return cmdutil.ConfigProblem(root, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	rs, err := notify.Test(ctx, cfg.Notify, notify.Deps{Tmux: f.Tmux()}, name, notify.Sample(root))
	if err != nil {
		return err
	}
	socket := f.Tmux().ServerSocket()
	checkMonitorEnv(rs, cfg.Notify, func(name string) (int, bool) { return daemon.MonitorLacks(socket, name) })
	if asJSON {
		if rs == nil {
			rs = []notify.Result{}
		}
		if err := cmdutil.PrintJSON(f.IO.Out, rs); err != nil {
			return err
		}
	} else {
		if len(rs) == 0 {
			fmt.Fprintln(f.IO.Out, "no channel is configured (see 'owt help notify' and docs/guides/notifications.md)")
		}
		for _, r := range rs {
			line := r.Channel + ": " + r.Result
			if r.Error != "" {
				line += ": " + r.Error
			}
			fmt.Fprintln(f.IO.Out, cmdutil.OneLine(line))
		}
	}
	if notify.Failed(rs) || len(rs) == 0 {
		return cmdutil.ExitWith(cmdutil.ExitError)
	}
	return nil
}

// checkMonitorEnv turns a ntfy test that was sent into a failure when
// the monitor, which sends the real notices, lacks the token's variable
// (lacks says so, with its pid): the test ran with the caller's
// environment, the monitor keeps the one of whichever owt started it.
func checkMonitorEnv(rs []notify.Result, n config.Notify, lacks func(name string) (pid int, lacks bool)) {
	if n.Ntfy.TokenEnv == "" {
		return
	}
	for i := range rs {
		if rs[i].Channel != "ntfy" || rs[i].Result != "sent" {
			continue
		}
		if pid, no := lacks(n.Ntfy.TokenEnv); no {
			rs[i].Result = "failed"
			rs[i].Error = fmt.Sprintf("sent from here, but owt's monitor (pid %d) has no %s in its environment, so its notices will fail: "+
				"stop it (kill %d) and run 'owt tmux init' from a shell that has %s", pid, n.Ntfy.TokenEnv, pid, n.Ntfy.TokenEnv)
		}
	}
}
