package setupcmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
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
			"A worktree with ignored files owt did not put there (notes.local, a local database) counts as work too. " +
			"Your tmux.conf is never edited: the lines to remove are named. Your config file is kept, and so are " +
			"your memory facts and notes unless --purge-data; with --keep-worktrees so are the records of the kept worktrees, " +
			"so an owt installed again can still land or delete them. When a worktree cannot be deleted it stops there, " +
			"leaving the rest of owt in place (exit 1). A state file owt cannot read, or a repository no longer where owt " +
			"recorded it, stops it before anything changes.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "print what would be removed, and change nothing"},
			&cli.BoolFlag{Name: "keep-worktrees", Usage: "leave the worktrees with work or a running agent in place (owt's hooks taken out of them, their records kept) instead of refusing"},
			&cli.BoolFlag{Name: "purge-data", Usage: "remove your memory facts and notes too (kept otherwise)"},
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
	o := uninstall.Options{KeepWorktrees: c.Bool("keep-worktrees"), Self: self, Tmux: f.Tmux(), Home: home,
		PurgeData: c.Bool("purge-data")}
	dry := c.Bool("dry-run")
	if !dry {
		// One uninstall at a time: the lock's file is outside every
		// folder an uninstall removes.
		lock := flock.New(filepath.Join(os.TempDir(), "owt-uninstall-"+strconv.Itoa(os.Getuid())+".lock"))
		ok, err := lock.TryLock()
		if err != nil {
			return fmt.Errorf("owt uninstall: lock %s: %w", lock.Path(), err)
		}
		if !ok {
			fmt.Fprintln(f.IO.ErrOut, "owt uninstall: another owt uninstall is running; nothing was removed")
			return cmdutil.ExitWith(cmdutil.ExitError)
		}
		defer func() { _ = lock.Unlock() }()
	}
	plan, err := uninstall.Find(o)
	if err != nil {
		return fmt.Errorf("owt uninstall: %w", err)
	}
	out := c.App.Writer
	if c.Bool("json") {
		var applyErr error
		if !dry {
			applyErr = plan.Apply(o, nil)
		}
		if err := cmdutil.PrintJSON(out, struct {
			DryRun bool `json:"dry_run"`
			*uninstall.Plan
		}{dry, plan}); err != nil {
			return err
		}
		return uninstallResult(plan, applyErr)
	}
	if len(plan.Problems) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "owt uninstall: owt cannot see everything it made; nothing was removed:\n")
		for _, pr := range plan.Problems {
			fmt.Fprintf(f.IO.ErrOut, "  %s\n", pr)
		}
		if len(plan.Blocked) > 0 {
			printBlocked(f.IO.ErrOut, plan, dry)
		}
		return cmdutil.ExitWith(cmdutil.ExitError)
	}
	if len(plan.Blocked) > 0 {
		printBlocked(f.IO.ErrOut, plan, dry)
		return cmdutil.ExitWith(cmdutil.ExitError)
	}
	if dry {
		printPlan(out, plan)
		printKept(out, plan)
		return nil
	}
	fmt.Fprintln(out, "Removing (each line once done):")
	applyErr := plan.Apply(o, func(st uninstall.Step) {
		if st.Error != "" {
			fmt.Fprintf(out, "  FAILED  %-9s %s\n", st.What, st.Item)
			fmt.Fprintf(f.IO.ErrOut, "owt uninstall: %s\n", st.Error)
			return
		}
		fmt.Fprintf(out, "  removed %-9s %s\n", st.What, st.Item)
	})
	if plan.Stopped != "" {
		fmt.Fprintf(f.IO.ErrOut, "owt uninstall: %s\n", plan.Stopped)
		return cmdutil.ExitWith(cmdutil.ExitError)
	}
	printKept(out, plan)
	if applyErr != nil {
		fmt.Fprintln(f.IO.ErrOut, "owt uninstall: the steps marked FAILED above were not done")
		return cmdutil.ExitWith(cmdutil.ExitError)
	}
	return nil
}

func uninstallResult(plan *uninstall.Plan, err error) error {
	switch {
	case len(plan.Blocked) > 0 || len(plan.Problems) > 0:
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

// printPlan prints what a dry run would remove.
func printPlan(w io.Writer, p *uninstall.Plan) {
	fmt.Fprintf(w, "Would remove (--dry-run: nothing changed):\n")
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
		if kept := p.KeptUnder(s); len(kept) > 0 {
			s += " (but " + strings.Join(kept, ", ") + ")"
		}
		line("dir", s)
	}
}

// printKept prints what stays, and what is the user's to do.
func printKept(w io.Writer, p *uninstall.Plan) {
	line := func(what, s string) { fmt.Fprintf(w, "  %-9s %s\n", what, s) }
	if len(p.Kept) > 0 || p.Config != "" || hasKeptExcludes(p) || len(p.UserData) > 0 {
		fmt.Fprintln(w, "Kept:")
	}
	for _, a := range p.Kept {
		todo := "delete it with '" + a.Delete + "'"
		if a.Land != "" {
			todo = "land it with '" + a.Land + "', or " + todo
		}
		line("worktree", fmt.Sprintf("%s (%s): %s; owt's record of it is kept: with owt installed again, in %s: %s; "+
			"without owt: %s", a.Name, a.Path, keptWhy(a), a.Repo, todo, strings.Join(a.Git, "; ")))
	}
	for _, d := range p.UserData {
		if p.Purged() {
			continue
		}
		line("data", d+" (yours: owt uninstall --purge-data removes it)")
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
	for _, s := range p.OtherServers {
		fmt.Fprintf(w, "Another tmux server: %s\n", s)
	}
	for _, s := range p.OtherOwts {
		fmt.Fprintf(w, "Another owt stays on your PATH: %s (remove it with its own owt uninstall, or rm)\n", s)
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
