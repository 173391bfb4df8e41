package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the streams owt's commands read and write, made once by
// the entry (System) and passed down, so that no command touches
// os.Stdin/os.Stdout/os.Stderr and a test can run one with buffers.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// InTTY and OutTTY say whether In and Out are terminals: a terminal
	// can be asked a question, and shown colours or a full-screen view.
	InTTY, OutTTY bool
	// NoColor is NO_COLOR set: plain output even on a terminal.
	NoColor bool
}

// System is the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In:      os.Stdin,
		Out:     os.Stdout,
		ErrOut:  os.Stderr,
		InTTY:   term.IsTerminal(int(os.Stdin.Fd())),
		OutTTY:  term.IsTerminal(int(os.Stdout.Fd())),
		NoColor: os.Getenv("NO_COLOR") != "",
	}
}
