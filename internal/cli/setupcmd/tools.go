package setupcmd

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/agent"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/hook"
)

type toolInfo struct {
	Name        string   `json:"name"`
	Installed   bool     `json:"installed"`
	Path        string   `json:"path,omitempty"`
	Command     []string `json:"command"`
	Prompt      string   `json:"prompt"`
	Plan        bool     `json:"plan"`
	Hooks       string   `json:"hooks,omitempty"`
	Default     bool     `json:"default"`
	InstallHint string   `json:"install_hint,omitempty"`
}

func ToolsCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:        "tools",
		Usage:       "list the agent tools owt knows and which are installed",
		Flags:       []cli.Flag{cmdutil.JSONFlag()},
		Subcommands: []*cli.Command{codexHooksCommand(f)},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c, "tools"); err != nil {
				return err
			}
			cfg, root, err := cmdutil.LoadConfig()
			if err != nil {
				return cmdutil.ConfigProblem(root, err)
			}
			profiles, err := agent.Profiles(cfg)
			if err != nil {
				return cmdutil.ConfigProblem(root, err)
			}
			def := ""
			if p, err := agent.Resolve(profiles, cfg.Agent.Tool); err == nil {
				def = p.Name
			}
			var infos []toolInfo
			for _, n := range agent.Order(profiles) {
				p := profiles[n]
				path, ok := p.LookPath()
				infos = append(infos, toolInfo{
					Name: n, Installed: ok, Path: path, Command: p.Command, Prompt: string(p.Prompt),
					Plan: p.Plan != nil, Hooks: p.Hooks, Default: n == def, InstallHint: p.InstallHint,
				})
			}
			if c.Bool("json") {
				return cmdutil.PrintJSON(c.App.Writer, infos)
			}
			tw := tabwriter.NewWriter(c.App.Writer, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TOOL\tINSTALLED\tPROMPT\tPLAN\tSTATUS FROM\tINSTALL")
			for _, t := range infos {
				name := t.Name
				if t.Default {
					name += " (default)"
				}
				inst := "no"
				if t.Installed {
					inst = t.Path
				}
				plan := "-"
				if t.Plan {
					plan = "yes"
				}
				src := "screen"
				if t.Hooks != "" {
					src = "hooks+screen"
				}
				hint := t.InstallHint
				if t.Installed {
					hint = ""
				}
				fmt.Fprintln(tw, strings.Join([]string{name, inst, t.Prompt, plan, src, hint}, "\t"))
			}
			return tw.Flush()
		},
	}
}

// codexServerLine says whether codex, started by owt without -c notify,
// keeps its shared background server: any -c makes it run embedded, and
// owt still passes -c mcp_servers.owt where it gives codex owt mcp.
func codexServerLine() string {
	const start = "From now on owt starts codex without -c notify"
	cfg, _, err := cmdutil.LoadConfig()
	if err != nil {
		return start + "."
	}
	profiles, err := agent.Profiles(cfg)
	if err != nil {
		return start + "."
	}
	if p, ok := profiles["codex"]; ok && p.MCPRegistration(cfg.MCP) == agent.MCPCodex {
		return start + "; it still passes -c mcp_servers.owt (owt mcp, the agents' peers), and with any -c\n" +
			"codex runs embedded, without its shared background server ([tools.codex] mcp = false gives it back, without owt mcp)."
	}
	return start + " or any other -c, so codex keeps its shared background server."
}

// codexHooksCommand installs or removes owt's hooks in the user's Codex
// hooks file: the one place Codex reads hooks for every worktree without
// a review per worktree and without -c notify.
func codexHooksCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "codex-hooks",
		Usage:     "install owt's hooks in your Codex hooks file ($CODEX_HOME/hooks.json), or --remove them",
		ArgsUsage: " ",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "remove", Usage: "take owt's hooks out again (yours stay)"}},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c, "tools codex-hooks"); err != nil {
				return err
			}
			if c.Bool("remove") {
				path, had, err := hook.RemoveCodexHooks()
				switch {
				case err != nil:
					return err
				case had:
					fmt.Fprintf(c.App.Writer, "removed owt's hooks from %s; owt passes -c notify to codex again\n", path)
				default:
					fmt.Fprintf(c.App.Writer, "%s holds no hooks of owt's\n", path)
				}
				return nil
			}
			self, err := os.Executable()
			if err != nil {
				return fmt.Errorf("find owt executable: %w", err)
			}
			path, err := hook.InstallCodexHooks(self)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "installed owt's hooks in %s (your own hooks there stay).\n"+
				"Codex asks you once to review them (\"Hooks need review\"): choose to trust them.\n%s\n", path, codexServerLine())
			return nil
		},
	}
}
