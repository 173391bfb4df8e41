package cmdutil

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

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

// Confirm asks q on ios and says whether the answer was yes.
func Confirm(ios *IOStreams, q string) bool {
	fmt.Fprintf(ios.ErrOut, "%s [y/N] ", q)
	line, _ := bufio.NewReader(ios.In).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}
