// Package cmdtest is test support for the command packages: owt run
// in-process on test streams. Only tests import it, so none of it is in
// the owt binary.
package cmdtest

import (
	"bytes"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdutil"
)

// Streams are streams for a test: stdin as given, stdout and stderr kept;
// neither is a terminal.
func Streams(stdin string) (*cmdutil.IOStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &cmdutil.IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}, &out, &errOut
}

// RunAlone runs owt with args (the command's name first) in-process as
// Main would, on an app holding only the command build makes, with stdin
// as given; it returns stdout, stderr and the exit code. It is for the
// tests of a command package, which cannot reach owt's command table.
func RunAlone(stdin string, build func(*cmdutil.Factory) *cli.Command, args ...string) (string, string, int) {
	ios, out, errOut := Streams(stdin)
	f := &cmdutil.Factory{IO: ios}
	code := f.Execute(f.NewApp(build(f)), append([]string{"owt"}, args...))
	return out.String(), errOut.String(), code
}
