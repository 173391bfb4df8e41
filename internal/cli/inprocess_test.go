package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// testStreams are the streams of one in-process run of owt: stdin as
// given, stdout and stderr kept; neither is a terminal.
func testStreams(stdin string) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &IOStreams{In: strings.NewReader(stdin), Out: &out, ErrOut: &errOut}, &out, &errOut
}

// runOwt runs owt's command line in-process, as Main does, on test
// streams; swap builds a command in place of owt's own one of the same
// name (typically one whose run function only records its options).
// It returns stdout, stderr and the exit code.
func runOwt(t *testing.T, stdin string, swap func(*factory) *cli.Command, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("TMUX", "")
	t.Setenv(SocketEnv, "")
	ios, out, errOut := testStreams(stdin)
	f := &factory{io: ios}
	app := f.app()
	if swap != nil {
		c := swap(f)
		guardUsage(c, app.OnUsageError)
		found := false
		for i := range app.Commands {
			if app.Commands[i].Name == c.Name {
				app.Commands[i], found = c, true
			}
		}
		if !found {
			t.Fatalf("owt has no command %q to swap", c.Name)
		}
	}
	code := f.execute(app, append([]string{"owt"}, args...))
	return out.String(), errOut.String(), code
}
