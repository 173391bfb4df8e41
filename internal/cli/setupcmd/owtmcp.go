package setupcmd

import (
	"os"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/memory"
)

// MCPCommand is owt mcp, run by owt-mcp: the MCP server needs the MCP SDK
// (and net/http), whose start-up cost every owt command would pay.
func MCPCommand(f *cmdutil.Factory) *cli.Command {
	return siblingCommand(f, "mcp", "the MCP server an agent's tool starts (stdio): peers, messages, spawning, memory (see docs/guides/peers-and-swarms.md)")
}

// MemoryCommand is owt memory, run by owt-mcp: the memory is SQLite, kept
// out of owt for the same reason.
func MemoryCommand(f *cmdutil.Factory) *cli.Command {
	return siblingCommand(f, "memory", "the repository's memory: facts every new agent starts with (add, search, list, forget, mine, consolidate, reports)")
}

// siblingCommand is a command owt hands whole to owt-mcp, beside it: its
// arguments as given, the tmux server owt chose, owt's tracing.
func siblingCommand(f *cmdutil.Factory, name, usage string) *cli.Command {
	return &cli.Command{
		Name:            name,
		Usage:           usage,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			me, err := self()
			if err != nil {
				return err
			}
			bin, err := memory.Find(me)
			if err != nil {
				return err
			}
			argv := []string{bin}
			if f.Socket != "" {
				argv = append(argv, "-S", f.Socket)
			}
			if c.Bool("trace") { // owt's own --trace (OWT_TRACE passes in the environment)
				argv = append(argv, "--trace")
			}
			argv = append(append(argv, name), c.Args().Slice()...)
			return syscall.Exec(bin, argv, os.Environ())
		},
	}
}
