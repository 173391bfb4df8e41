// Command owt-hook is "owt hook" in a program of its own: what the agent
// tools run for each hook event, so the agent waits for a binary that
// holds the hook path alone (package hookrun). main only wires.
package main

import (
	"os"

	"golang.org/x/term"

	"github.com/owt-tmux/owt/internal/hookrun"
)

func main() { os.Exit(hookrun.Main(os.Args, os.Stdin, term.IsTerminal(int(os.Stdin.Fd())))) }
