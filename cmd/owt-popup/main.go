// Command owt-popup runs owt's interactive screens (the switch picker, the
// create form, the merge and delete confirmations, the control plane and
// its diff review) in the terminal of a
// tmux popup or pane; `owt popup NAME` runs it. It is a program of its own
// because the terminal UI libraries it needs set themselves up when a
// program starts (bubbletea even queries the terminal), a cost every other
// owt command, run from hooks and status bars, must not pay.
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/owt-tmux/owt/internal/config"
	"github.com/owt-tmux/owt/internal/owtlog"
	"github.com/owt-tmux/owt/internal/tmux"
	"github.com/owt-tmux/owt/popups"
)

var screens = map[string]func(*tmux.Client, popups.Screen) error{
	"switch":  popups.Switch,
	"create":  popups.Create,
	"merge":   popups.Merge,
	"delete":  popups.Delete,
	"control": popups.Control,
}

const usage = "usage: owt-popup [--theme auto|dark|light|dark-ansi|light-ansi] switch|create|merge|delete|control, owt-popup diff NAME (or: owt popup …, owt diff NAME)"

func main() {
	config.LoadDirs() // before anything reads a path
	owtlog.SetFormatSource(config.LogFormat)
	args := os.Args[1:]
	// --theme THEME (or --theme=THEME) comes first: the palette of every screen.
	if len(args) > 0 && (args[0] == "--theme" || strings.HasPrefix(args[0], "--theme=")) {
		name, ok := strings.CutPrefix(args[0], "--theme=")
		if !ok {
			if len(args) < 2 {
				fmt.Fprintln(os.Stderr, usage)
				os.Exit(2)
			}
			name, args = args[1], args[1:]
		}
		args = args[1:]
		if err := popups.SetTheme(name); err != nil {
			fmt.Fprintf(os.Stderr, "owt-popup: %v\n", err)
			os.Exit(2)
		}
	}
	if len(args) == 2 && args[0] == "diff" {
		if err := popups.Diff(tmux.New(), popups.Terminal(), args[1]); err != nil {
			os.Exit(1)
		}
		return
	}
	if len(args) != 1 || screens[args[0]] == nil {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	// The popup has shown any error itself; only the status remains.
	if err := screens[args[0]](tmux.New(), popups.Terminal()); err != nil {
		os.Exit(1)
	}
}
