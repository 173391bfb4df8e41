// Command owt-wait waits for an agent in its pane in owt's place, so each
// agent costs a few hundred KiB rather than owt's few MiB (package
// waiter). owt _run execs it; main only wires.
package main

import (
	"os"

	"github.com/owt-tmux/owt/internal/waiter"
)

func main() { os.Exit(waiter.Main(os.Args)) }
