package worktreecmd

import (
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/hook"
	"github.com/owt-tmux/owt/internal/status"
)

// HookCommand is what the agent tools run ("owt hook claude Stop"). It
// prints nothing (tools read a hook's stdout as a decision) and always
// exits 0 (a failing hook can stop the agent); problems go to owt's log.
// "owt hook claude statusline", Claude's statusLine command, prints the
// user's own statusLine's output.
func HookCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:            "hook",
		Hidden:          true,
		SkipFlagParsing: true,
		Usage:           "report an agent tool's hook event (run by the tools; prints nothing, always exits 0)",
		ArgsUsage:       "KIND EVENT [NOTIFY-PROGRAM…] [JSON]",
		Action: func(c *cli.Context) error {
			RunHook(f, c.Args().Slice())
			return nil
		},
	}
}

// RunHook is "owt hook" with args (KIND EVENT …) on f's tmux server:
// it never fails and prints nothing (package hook). cli.Main calls it
// without building the app.
func RunHook(f *cmdutil.Factory, args []string) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 2 && args[0] == "claude" && args[1] == agent.StatusLineEvent {
		// Claude's statusLine: the one "hook" that prints (the user's own
		// statusLine, which owt's hides).
		hook.StatusLine(f.IO.In, f.IO.Out, f.IO.InTTY)
		return
	}
	hook.Run(f.Socket, args, f.IO.In, f.IO.InTTY)
}

// PublishCommand is the detached helper "owt hook" starts when a status
// changed: it shows the record's status in tmux while the hook has
// already returned to its agent. It takes the publish lock itself.
func PublishCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "_publish",
		Hidden:    true,
		Usage:     "show an agent's recorded status in tmux (started by owt hook)",
		ArgsUsage: "REPO NAME",
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return cmdutil.Usagef("_publish takes REPO and NAME")
			}
			status.PublishRecord(f.Tmux(), c.Args().Get(0), c.Args().Get(1))
			return nil
		},
	}
}
