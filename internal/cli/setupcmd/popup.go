package setupcmd

import (
	"os"
	"syscall"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/proc"
	"github.com/owt-tmux/owt/internal/termtheme"
	"github.com/urfave/cli/v2"
)

// popupProgram is the program holding owt's interactive screens. It is
// separate from owt so that no other command loads terminal UI libraries.
const popupProgram = "owt-popup"

// PopupCommand runs owt's interactive screens. The keys bound by owt tmux
// init run them in display-popup; they work in any pane too.
func PopupCommand(f *cmdutil.Factory) *cli.Command {
	sub := func(name, usage string) *cli.Command {
		return &cli.Command{
			Name:  name,
			Usage: usage,
			Flags: []cli.Flag{&cli.StringFlag{Name: "theme", Usage: "colour `THEME`: auto (the terminal's background), dark, light, dark-ansi or light-ansi (default: the tmux option @owt-theme, else auto)"}},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return cmdutil.Usagef("popup %s takes no arguments", name)
				}
				if t := c.String("theme"); t != "" {
					if err := termtheme.Check(t); err != nil {
						return cmdutil.Usagef("--theme: %v", err)
					}
					return execPopup("--theme", t, name)
				}
				return execPopup(name)
			},
		}
	}
	return &cli.Command{
		Name:  "popup",
		Usage: "the interactive screens behind owt's keys (run them in a pane or a tmux popup)",
		Subcommands: []*cli.Command{
			sub("switch", "fuzzy picker of every agent; Enter goes there (Alt+s)"),
			sub("create", "form for a new agent: task, tool, base branch, plan mode (Alt+c)"),
			sub("merge", "what merging the current worktree would do (Alt+m)"),
			sub("delete", "delete a worktree, asking twice before losing work (Alt+d)"),
			sub("control", "every agent and run task by what it needs: a verb on every row, diff review (Alt+o)"),
		},
	}
}

// execPopup replaces owt with the popup program showing args, so the
// screen owns the terminal and its exit status is the popup's.
func execPopup(args ...string) error {
	bin, err := findPopupProgram()
	if err != nil {
		return err
	}
	return syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
}

// findPopupProgram looks next to the running owt first (the two are built
// and installed together), then on PATH.
func findPopupProgram() (string, error) {
	me, err := self()
	if err != nil {
		me = ""
	}
	return proc.Sibling(me, popupProgram)
}
