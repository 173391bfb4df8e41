package worktreecmd

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdtest"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
)

// newSpecAs runs owt new in-process, its run function reading the options
// (--spec-stdin included) and keeping them.
func newSpecAs(t *testing.T, stdin string, args ...string) (*newOptions, string, int) {
	t.Helper()
	var got *newOptions
	swap := func(f *cmdutil.Factory) *cli.Command {
		return NewCommand(f, func(o *newOptions) error {
			if o.SpecStdin {
				if err := readSpec(o); err != nil {
					return err
				}
			}
			got = o
			return nil
		})
	}
	_, stderr, code := cmdtest.RunAlone(stdin, swap, append([]string{"new"}, args...)...)
	return got, stderr, code
}

// What a local owt sends a host's owt on stdin becomes exactly the
// options of owt new there; anything else on the line, or a key owt
// does not know, is refused.
func TestNewSpecStdin(t *testing.T) {
	spec := `{"task":"fix $(x)\n-rf","name":"far","base":"main","start_at":"abc123","tool":"claude","template":"none","no_setup":true}`
	o, stderr, code := newSpecAs(t, spec, "--spec-stdin", "--json")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, lifecycle.CreateOptions{Task: "fix $(x)\n-rf", Name: "far", Base: "main", StartAt: "abc123",
		Tool: "claude", Template: "none", NoSetup: true}, o.Create)
	require.True(t, o.JSON)

	for _, bad := range []struct {
		stdin string
		args  []string
	}{
		{`{"task":"x","spawner":"evil"}`, []string{"--spec-stdin"}},
		{`not json`, []string{"--spec-stdin"}},
		{`{"task":"x"}`, []string{"--spec-stdin", "a", "task", "on", "the", "line"}},
		{`{"task":"x"}`, []string{"--spec-stdin", "--name", "n"}},
	} {
		_, stderr, code := newSpecAs(t, bad.stdin, bad.args...)
		require.Equal(t, cmdutil.ExitUsage, code, "%v %s: %s", bad.args, bad.stdin, stderr)
	}
}

func TestSendSpecStdin(t *testing.T) {
	o, stderr, code := sendAs(t, `{"name":"far","text":"hi $(x)\nthere"}`, "--spec-stdin", "--json")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{"far"}, o.Names)
	require.Equal(t, "hi $(x)\nthere", o.Text)
	for _, bad := range []struct {
		stdin string
		args  []string
	}{
		{`{"name":"far","text":"hi","all":true}`, []string{"--spec-stdin"}},
		{`{"name":"far","text":"  "}`, []string{"--spec-stdin"}},
		{`{"name":"","text":"hi"}`, []string{"--spec-stdin"}},
		{`{"name":"far","text":"a\nb","answer":true}`, []string{"--spec-stdin"}},
		{`{"name":"far","text":"hi"}`, []string{"--spec-stdin", "far", "hi"}},
		{`{"name":"far","text":"hi"}`, []string{"--spec-stdin", "--all"}},
	} {
		_, stderr, code := sendAs(t, bad.stdin, bad.args...)
		require.Equal(t, cmdutil.ExitUsage, code, "%v %s: %s", bad.args, bad.stdin, stderr)
	}
}
