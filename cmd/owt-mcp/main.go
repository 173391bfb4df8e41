// Command owt-mcp runs owt mcp (the MCP server each agent's tool starts)
// and owt memory (the repository's memory, in SQLite); `owt mcp` and `owt
// memory` run it. It is a program of its own because the MCP SDK (with
// net/http) and SQLite set themselves up when a program starts — about 3
// ms, measured — a cost every other owt command, run from hooks and
// status bars, must not pay. main only wires.
package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/buildinfo"
	owtcli "github.com/owt-tmux/owt/internal/cli"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/cli/mcpcmd"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/owtlog"
)

func main() {
	config.LoadDirs() // before anything reads a path
	owtlog.SetFormatSource(config.LogFormat)
	f := &cmdutil.Factory{IO: cmdutil.System()}
	app := f.NewApp(mcpcmd.Command(f, buildinfo.String()), mcpcmd.MemoryCommand(f), mcpcmd.OpenCodeUsageCommand(f), mcpcmd.HTTPCommand(f))
	app.Usage = "owt's MCP server and the repository's memory (run as owt mcp, owt memory)"
	app.Version = buildinfo.String()
	app.Flags = owtcli.ServerFlags()
	app.Before = func(c *cli.Context) error { return owtcli.ChooseServer(f, c) }
	cmdutil.SetExamples(app.Commands, mcpcmd.MemoryExamples)
	os.Exit(f.Execute(app, os.Args))
}
