package setupcmd

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/git"
)

// untrackedStat is what owt diff --stat says for a new file not yet
// committed (git counts no lines for it), as the review screen does.
const untrackedStat = "new, uncommitted"

// DiffCommand is owt diff NAME: the diff review of the control popup on
// a terminal; piped, every changed file's plain diff, as git diff prints
// it; with --stat or --json the files NAME changed against its base with
// their line counts.
func DiffCommand(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "review what a worktree changed against its base: files, then each file's diff (d in the control popup); piped, the plain diff of every file",
		ArgsUsage: "NAME",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stat", Usage: "print the changed files with +/- counts (a new file not yet committed: " + untrackedStat + ", no counts) instead of the review screen"},
			&cli.StringFlag{Name: "file", Usage: "print the plain diff of this one changed `PATH` (as the review screen shows it)"},
			cmdutil.JSONFlag(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 1 {
				// On a host: the list of files (the review screen needs
				// the worktree, which is there).
				if ran, err := cmdutil.RunOnHost(f, c, c.Args().First(), time.Minute, nil); ran {
					return err
				}
			}
			w, rec, err := f.NamedRecord(c, "diff")
			if err != nil {
				return err
			}
			interactive := f.IO.InTTY && f.IO.OutTTY
			if interactive && !c.Bool("stat") && !c.Bool("json") && !c.IsSet("file") {
				return execPopup("diff", rec.Name)
			}
			base := w.Repo.BaseRef(rec.Base, rec.BaseCommit)
			files, err := git.ChangedFiles(rec.Path, base)
			if err != nil {
				return err
			}
			if c.IsSet("file") {
				for _, fc := range files {
					if fc.Path == c.String("file") {
						d, err := git.FileDiff(rec.Path, base, fc, false)
						if err != nil {
							return err
						}
						_, err = fmt.Fprint(c.App.Writer, d)
						return err
					}
				}
				return cmdutil.Usagef("--file %s: %s changed no such file", cmdutil.Shown(c.String("file")), rec.Name)
			}
			if c.Bool("json") {
				if files == nil {
					files = []git.FileChange{}
				}
				return cmdutil.PrintJSON(c.App.Writer, files)
			}
			if !c.Bool("stat") {
				// Piped (| less, > review.patch): the diff itself, each
				// file as the review screen shows it, new files whole.
				for _, fc := range files {
					d, err := git.FileDiff(rec.Path, base, fc, false)
					if err != nil {
						return err
					}
					if _, err := fmt.Fprint(c.App.Writer, d); err != nil {
						return err
					}
				}
				return nil
			}
			for _, f := range files {
				switch {
				case f.Untracked:
					fmt.Fprintf(c.App.Writer, "%s\t%s\n", cmdutil.Shown(f.Path), untrackedStat)
				case f.Binary:
					fmt.Fprintf(c.App.Writer, "%s\tbinary\n", cmdutil.Shown(f.Path))
				default:
					fmt.Fprintf(c.App.Writer, "%s\t+%d -%d\n", cmdutil.Shown(f.Path), f.Insertions, f.Deletions)
				}
			}
			return nil
		},
	}
}
