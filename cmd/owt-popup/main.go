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

func main() {
	if len(os.Args) == 3 && os.Args[1] == "diff" {
		if err := popups.Diff(tmux.New(), popups.Terminal(), os.Args[2]); err != nil {
			os.Exit(1)
		}
		return
	}
	if len(os.Args) != 2 || screens[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: owt-popup switch|create|merge|delete|control, owt-popup diff NAME (or: owt popup …, owt diff NAME)")
		os.Exit(2)
	}
	// The popup has shown any error itself; only the status remains.
	if err := screens[os.Args[1]](tmux.New(), popups.Terminal()); err != nil {
		os.Exit(1)
	}
}
