// Command owt runs many AI coding agents in parallel, each in its own git
// worktree and tmux session. main only wires: everything is in internal/.
package main

import (
	"os"

	"github.com/owt-tmux/owt/internal/cli"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/owtlog"
)

func main() {
	config.LoadDirs() // before anything reads a path
	owtlog.SetFormatSource(config.LogFormat)
	os.Exit(cli.Main(os.Args, cmdutil.System()))
}
