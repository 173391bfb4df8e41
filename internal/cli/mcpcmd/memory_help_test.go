package mcpcmd

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdtest"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
)

// owt memory's help, which owt-mcp prints, has examples for every
// command and names its flags' values.
func TestMemoryHelpHasExamplesAndNamedValues(t *testing.T) {
	var paths [][]string
	cmdutil.Walk([]*cli.Command{MemoryCommand(&cmdutil.Factory{IO: &cmdutil.IOStreams{}})}, func(path []string, c *cli.Command) {
		if !c.Hidden {
			paths = append(paths, path)
		}
	})
	build := func(f *cmdutil.Factory) *cli.Command {
		c := MemoryCommand(f)
		cmdutil.SetExamples([]*cli.Command{c}, MemoryExamples)
		return c
	}
	for _, path := range paths {
		out, errOut, code := cmdtest.RunAlone("", build, append(path, "--help")...)
		name := "owt " + strings.Join(path, " ")
		if code != 0 {
			t.Fatalf("%s --help: exit %d: %s", name, code, errOut)
		}
		if i := strings.Index(out, "\nEXAMPLES:\n   "); i < 0 || !strings.Contains(out[i:], name) {
			t.Errorf("%s --help has no example of it:\n%s", name, out)
		}
		if strings.Contains(out, " value ") || strings.Contains(out, "(default: false)") {
			t.Errorf("%s --help names a value 'value' or says (default: false):\n%s", name, out)
		}
	}
}
