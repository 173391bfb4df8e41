package mcpcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/opencodedb"
)

// OpenCodeUsageCommand is "owt-mcp _opencode-usage --db PATH": the
// monitor's way (memory.Ask) to read OpenCode's token usage from its
// SQLite database, which owt itself does not link. The queries come as
// JSON on stdin ([{dir, since}]), the rows go out as JSON.
func OpenCodeUsageCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:   "_opencode-usage",
		Hidden: true,
		Usage:  "read OpenCode's token usage of folders from its database (the monitor runs it)",
		Flags:  []cli.Flag{&cli.StringFlag{Name: "db", Required: true, Usage: "OpenCode's database"}},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cmdutil.Usagef("_opencode-usage takes no arguments")
			}
			data, err := io.ReadAll(io.LimitReader(f.IO.In, 1<<20))
			if err != nil {
				return err
			}
			var qs []opencodedb.Query
			if err := json.Unmarshal(data, &qs); err != nil {
				return cmdutil.Usagef("_opencode-usage reads JSON queries on stdin: %v", err)
			}
			rows, err := opencodedb.Usage(context.Background(), c.String("db"), qs)
			if err != nil {
				return fmt.Errorf("OpenCode's usage: %w", err)
			}
			if rows == nil {
				rows = []opencodedb.Row{}
			}
			return cmdutil.PrintJSON(f.IO.Out, rows)
		},
	}
}
