// Package cli is owt's command line: Main, and the command table that
// wires the commands of the packages below it into one urfave app. The
// commands themselves live in one package per group (worktreecmd,
// landcmd, runcmd, setupcmd, hostcmd, and mcpcmd for owt-mcp's);
// what they share is cmdutil, below them.
//
// Main builds the app once, around a factory that holds the IOStreams the
// entry gave it and the tmux server chosen by -L/-S; every command gets
// the factory when it is built, and nothing lives in package globals. A
// command with logic of its own (send, new, plan, queue) turns its flags
// into an options struct and hands it to a run function, as gh's commands
// do, so a test runs it in-process with buffers for streams.
package cli

import (
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/buildinfo"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/cli/hostcmd"
	"github.com/owt-tmux/owt/internal/cli/landcmd"
	"github.com/owt-tmux/owt/internal/cli/runcmd"
	"github.com/owt-tmux/owt/internal/cli/setupcmd"
	"github.com/owt-tmux/owt/internal/cli/worktreecmd"
	"github.com/owt-tmux/owt/internal/owtlog"
)

// Main runs owt with args on the streams ios and returns the process exit
// code. Every error becomes one line on ios.ErrOut.
func Main(args []string, ios *cmdutil.IOStreams) int {
	f := &cmdutil.Factory{IO: ios}
	if len(args) > 1 && args[1] == "hook" && args[len(args)-1] != "--generate-bash-completion" {
		// Every agent turn runs "owt hook KIND EVENT", and the agent waits
		// for it: it goes straight to the hook, without building the
		// command table (a third of a millisecond), as the app would run
		// it with no global flags (which a hook line never has).
		chooseDefaultServer(f)
		worktreecmd.RunHook(f, args[2:])
		return cmdutil.ExitOK
	}
	if len(args) > 1 && args[1] == "status-line" {
		// A status bar other than tmux's runs it on every redraw: the app
		// holds that one command, not the whole table (a third of a
		// millisecond); flags, help and errors are the same, being the
		// same command's.
		return f.Execute(app(f, []*cli.Command{setupcmd.StatusLineCommand(f)}), args)
	}
	return f.Execute(app(f, commands(f)), args)
}

// app builds the owt command around commands, all sharing f.
func app(f *cmdutil.Factory, commands []*cli.Command) *cli.App {
	app := f.NewApp(commands...)
	app.Usage = "run many AI coding agents in parallel, each in its own git worktree and tmux session"
	app.Version = buildinfo.String()
	app.Flags = append(ServerFlags(), &cli.StringFlag{Name: "log-format",
		Usage: "write owt.log lines as `FORMAT`: text or json (default: [log] format in your config.toml, else text)"})
	app.Before = func(c *cli.Context) error {
		if c.IsSet("log-format") {
			if err := owtlog.SetFormat(c.String("log-format")); err != nil {
				return cmdutil.Usagef("--log-format: %v", err)
			}
		}
		return ChooseServer(f, c)
	}
	shapeHelp(app)
	cmdutil.SetCompletion(app, completion(app))
	return app
}

// commands are owt's commands; its help lists them under the headings of
// groups (help.go).
func commands(f *cmdutil.Factory) []*cli.Command {
	return []*cli.Command{
		worktreecmd.NewCommand(f, nil),
		worktreecmd.BranchCommand(f, nil),
		worktreecmd.ListCommand(f),
		worktreecmd.UsageCommand(f),
		worktreecmd.SwitchCommand(f),
		worktreecmd.AttachCommand(f),
		worktreecmd.RestoreCommand(f),
		worktreecmd.SendCommand(f, nil),
		worktreecmd.DeleteCommand(f),
		landcmd.CheckCommand(f), landcmd.MergeCommand(f), landcmd.ShipCommand(f), landcmd.CommitCommand(f), landcmd.QueueCommand(f, nil), landcmd.SyncCommand(f), landcmd.ResolveCommand(f), landcmd.CleanupCommand(f), worktreecmd.DoctorCommand(f), worktreecmd.NoteCommand(f),
		setupcmd.ToolsCommand(f), setupcmd.TemplatesCommand(f),
		setupcmd.ConfigCommand(f), setupcmd.NotifyCommand(f),
		runcmd.RunsCommand(f), runcmd.BatchCommand(f), runcmd.OrchestrateCommand(f), runcmd.PlanCommand(f, nil), worktreecmd.DoneCommand(f), landcmd.PRCommand(f), landcmd.DismissCommand(f),
		setupcmd.MCPCommand(f), worktreecmd.MessagesCommand(f), setupcmd.MemoryCommand(f),
		worktreecmd.SwarmCommand(f),
		hostcmd.Command(f, buildinfo.String()),
		worktreecmd.RunnerCommand(f),
		worktreecmd.HookCommand(f),
		worktreecmd.PublishCommand(f),
		setupcmd.MonitorCommand(f),
		worktreecmd.StatusCommand(f),
		worktreecmd.WhyCommand(f),
		worktreecmd.WaitCommand(f),
		setupcmd.TmuxCommand(f),
		setupcmd.PopupCommand(f), setupcmd.DiffCommand(f),
		setupcmd.StatusLineCommand(f),
		setupcmd.CompletionCommand(f),
		setupcmd.UninstallCommand(f),
		helpCommand(),
	}
}
