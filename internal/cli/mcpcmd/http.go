package mcpcmd

import (
	"context"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/httpcall/nethttp"
)

// HTTPCommand is owt-mcp _http: one HTTP request that owt (which does not
// link net/http) describes as JSON on stdin; see internal/httpcall.
func HTTPCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:   "_http",
		Hidden: true,
		Usage:  "make one HTTP request described as JSON on stdin (owt's notices run it)",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("_http takes no arguments")
			}
			return nethttp.Serve(context.Background(), nethttp.Client{}, f.IO.In, f.IO.Out)
		},
	}
}
