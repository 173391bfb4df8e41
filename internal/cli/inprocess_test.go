package cli

import (
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdtest"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
)

// runOwt runs owt's command line in-process, as Main does, on test
// streams; swap builds a command in place of owt's own one of the same
// name (typically one whose run function only records its options).
// It returns stdout, stderr and the exit code.
func runOwt(t *testing.T, stdin string, swap func(*cmdutil.Factory) *cli.Command, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("TMUX", "")
	t.Setenv(SocketEnv, "")
	ios, out, errOut := cmdtest.Streams(stdin)
	f := &cmdutil.Factory{IO: ios}
	cmds := commands(f)
	if swap != nil {
		c := swap(f)
		found := false
		for i := range cmds {
			if cmds[i].Name == c.Name {
				cmds[i], found = c, true
			}
		}
		if !found {
			t.Fatalf("owt has no command %q to swap", c.Name)
		}
	}
	code := f.Execute(app(f, cmds), append([]string{"owt"}, args...))
	return out.String(), errOut.String(), code
}
