package cmdutil

import "github.com/urfave/cli/v2"

// RunAlone runs owt with args (the command's name first) in-process as
// Main would, on an app holding only the command build makes, with stdin
// as given; it returns stdout, stderr and the exit code. It is for the
// tests of a command package, which cannot reach owt's command table.
func RunAlone(stdin string, build func(*Factory) *cli.Command, args ...string) (string, string, int) {
	ios, out, errOut := TestStreams(stdin)
	f := &Factory{IO: ios}
	code := f.Execute(f.NewApp(build(f)), append([]string{"owt"}, args...))
	return out.String(), errOut.String(), code
}
