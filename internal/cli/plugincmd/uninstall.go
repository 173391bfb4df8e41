package plugincmd

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/uninstall"
)

// UninstallCommand is owt uninstall.
func UninstallCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:  "uninstall",
		Usage: "remove owt from this machine: its programs, state, caches, logs, exclude lines, hooks and tmux keys; never a worktree with work in it",
		Description: "Removes owt's programs (this owt and the ones beside it, and the links @owt-link-bin made), " +
			"its state, caches, data and log, the lines it added to each repository's info/exclude, " +
			"its hooks in worktrees' settings files and in Codex's hooks file, and its keys, options and monitor " +
			"on this tmux server. Agent worktrees without work and without a running agent are deleted as owt delete does. " +
			"While an agent worktree holds uncommitted or unmerged work, or an agent runs, it lists them with how to " +
			"land or delete each and removes nothing (exit 1); --keep-worktrees leaves them in place instead. " +
			"Your tmux.conf is never edited: the lines to remove are named. Your config file is kept.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would be removed, and change nothing"},
			&cli.BoolFlag{Name: "keep-worktrees", Usage: "leave the worktrees with work or a running agent in place (owt's hooks taken out of them) instead of refusing"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := cmdutil.NoArgs(c, "uninstall"); err != nil {
				return err
			}
			return runUninstall(c, f)
		},
	}
}

func runUninstall(c *cli.Context, f *cmdutil.Factory) error {
	self, err := self()
	if err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	o := uninstall.Options{KeepWorktrees: c.Bool("keep-worktrees"), Self: self, Tmux: f.Tmux(), Home: home}
	plan, err := uninstall.Find(o)
	if err != nil {
		return fmt.Errorf("owt uninstall: %w", err)
	}
	dry := c.Bool("dry-run")
	out := c.App.Writer
	if c.Bool("json") {
		var applyErr error
		if !dry {
			applyErr = plan.Apply(o)
		}
		if err := cmdutil.PrintJSON(out, struct {
			DryRun bool `json:"dry_run"`
			*uninstall.Plan
		}{dry, plan}); err != nil {
			return err
		}
		return uninstallResult(plan, applyErr)
	}
	if len(plan.Blocked) > 0 {
		printBlocked(f.IO.ErrOut, plan, dry)
		return cmdutil.ExitWith(cmdutil.ExitError)
	}
	printPlan(out, plan, dry)
	if dry {
		return nil
	}
	return uninstallResult(plan, plan.Apply(o))
}

func uninstallResult(plan *uninstall.Plan, err error) error {
	switch {
	case len(plan.Blocked) > 0:
		return cmdutil.ExitWith(cmdutil.ExitError)
	case err != nil:
		return fmt.Errorf("owt uninstall: %w", err)
	}
	return nil
}

func printBlocked(w io.Writer, p *uninstall.Plan, dry bool) {
	fmt.Fprintf(w, "owt uninstall: %d agent worktree(s) hold work or a running agent; nothing was removed.\n", len(p.Blocked))
	if dry {
		fmt.Fprintf(w, "(--dry-run: an uninstall now would refuse the same way.)\n")
	}
	for _, a := range p.Blocked {
		var why []string
		if a.Work != "" {
			why = append(why, a.Work)
		}
		if a.Running {
			why = append(why, "its agent is running")
		}
		fmt.Fprintf(w, "  %s  %s\n    %s\n", a.Name, a.Path, strings.Join(why, "; "))
		fmt.Fprintf(w, "    in %s: ", a.Repo)
		if a.Land != "" {
			fmt.Fprintf(w, "land it with '%s', or ", a.Land)
		}
		fmt.Fprintf(w, "delete it with '%s'\n", a.Delete)
	}
	fmt.Fprintln(w, "Then run owt uninstall again; or owt uninstall --keep-worktrees to leave these worktrees in place.")
}

func printPlan(w io.Writer, p *uninstall.Plan, dry bool) {
	verb := "Removed"
	if dry {
		verb = "Would remove (--dry-run: nothing changed)"
	}
	fmt.Fprintf(w, "%s:\n", verb)
	line := func(what, s string) { fmt.Fprintf(w, "  %-9s %s\n", what, s) }
	for _, s := range p.Programs {
		line("program", s)
	}
	for _, s := range p.Links {
		line("link", s)
	}
	for _, a := range p.Deleted {
		line("agent", fmt.Sprintf("%s (%s, branch %s: no work, not running; as owt delete)", a.Name, a.Path, a.Branch))
	}
	for _, s := range p.HookFiles {
		line("hooks", s+" (owt's hooks only)")
	}
	for _, e := range p.Excludes {
		if e.Kept != "" {
			continue
		}
		line("exclude", fmt.Sprintf("%s: %s", e.File, strings.Join(e.Lines, ", ")))
	}
	if p.CodexHooks != "" {
		line("hooks", p.CodexHooks+" (owt's hooks only)")
	}
	for _, pid := range p.Monitors {
		line("monitor", fmt.Sprintf("pid %d", pid))
	}
	if len(p.Keys) > 0 {
		line("tmux", "keys "+strings.Join(p.Keys, " ")+" on this server")
	}
	if len(p.Options) > 0 {
		line("tmux", "options "+strings.Join(p.Options, ", ")+" on this server")
	}
	for _, s := range p.Dirs {
		line("dir", s)
	}
	if len(p.Kept) > 0 || p.Config != "" || hasKeptExcludes(p) {
		fmt.Fprintln(w, "Kept:")
	}
	for _, a := range p.Kept {
		todo := "delete it with '" + a.Delete + "'"
		if a.Land != "" {
			todo = "land it with '" + a.Land + "', or " + todo
		}
		line("worktree", fmt.Sprintf("%s (%s): %s; in %s: %s", a.Name, a.Path, keptWhy(a), a.Repo, todo))
	}
	for _, e := range p.Excludes {
		if e.Kept != "" {
			line("exclude", fmt.Sprintf("%s: %s (%s)", e.File, strings.Join(e.Lines, ", "), e.Kept))
		}
	}
	if p.Config != "" {
		line("config", p.Config+" (yours: remove it yourself if you want)")
	}
	if len(p.PluginLines) > 0 {
		fmt.Fprintln(w, "Remove these lines from your tmux config yourself (owt never edits it), then run 'tmux source-file' on it or restart tmux:")
		for _, l := range p.PluginLines {
			fmt.Fprintf(w, "  %s\n", l)
		}
		fmt.Fprintln(w, "With TPM, prefix + alt + u then removes the plugin's folder.")
	}
}

func hasKeptExcludes(p *uninstall.Plan) bool {
	for _, e := range p.Excludes {
		if e.Kept != "" {
			return true
		}
	}
	return false
}

func keptWhy(a uninstall.Agent) string {
	var why []string
	if a.Work != "" {
		why = append(why, a.Work)
	}
	if a.Running {
		why = append(why, "its agent is running")
	}
	return strings.Join(why, "; ")
}
