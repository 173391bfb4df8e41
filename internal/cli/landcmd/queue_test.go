package landcmd

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdtest"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/land"
)

func TestQueueOptionsAsTyped(t *testing.T) {
	for _, c := range []struct {
		args []string
		want queueOptions
	}{
		{nil, queueOptions{}},
		{[]string{"--json"}, queueOptions{JSON: true}},
		{[]string{"--ship", "-y"}, queueOptions{Ship: true, Yes: true}},
		{[]string{"--ship", "--yes", "--json"}, queueOptions{Ship: true, Yes: true, JSON: true}},
	} {
		var got *queueOptions
		swap := func(f *cmdutil.Factory) *cli.Command {
			return QueueCommand(f, func(o *queueOptions) error { got = o; return nil })
		}
		_, stderr, code := cmdtest.RunAlone("", swap, append([]string{"queue"}, c.args...)...)
		require.Equal(t, cmdutil.ExitOK, code, "%q: %s", c.args, stderr)
		got.IO, got.Workspace = nil, nil
		require.Equal(t, c.want, *got, "%q", c.args)
	}
	for _, args := range [][]string{{"queue", "w1"}, {"queue", "--ship", "w1"}} {
		ran := false
		swap := func(f *cmdutil.Factory) *cli.Command {
			return QueueCommand(f, func(*queueOptions) error { ran = true; return nil })
		}
		_, stderr, code := cmdtest.RunAlone("", swap, args...)
		require.False(t, ran, args)
		require.Equal(t, cmdutil.ExitUsage, code, args)
		require.Equal(t, "owt: queue takes no arguments\n", stderr, args)
	}
}

func TestQueueIsPrintedInItsOrder(t *testing.T) {
	ios, out, _ := cmdtest.Streams("")
	printQueue(ios.Out, land.Queue{
		Entries: []land.QueueEntry{
			{Name: "api", Branch: "feat/api", Status: "idle", Ahead: 2, Size: 40, Clean: true},
			{Name: "ui", Branch: "feat/ui", Status: "exited", Ahead: 1, Uncommitted: 3, Size: 7, Overlaps: 1, Conflicts: []string{"app.go", "ui.go"}},
		},
		Skipped: []land.Skipped{{Name: "busy", Reason: "working"}},
	})
	require.Equal(t, ""+
		"#  NAME  BRANCH    STATUS  COMMITS  UNCOMMITTED  LINES  OVERLAPS  PREDICTION\n"+
		"1  api   feat/api  idle    2        0            40     0         merges cleanly\n"+
		"2  ui    feat/ui   exited  1        3            7      1         conflicts in app.go, ui.go\n"+
		"not queued: busy (working)\n", out.String())

	ios, out, _ = cmdtest.Streams("")
	printQueue(ios.Out, land.Queue{Skipped: []land.Skipped{{Name: "busy", Reason: "working"}}})
	require.Equal(t, "the queue is empty: no idle or exited worktree has changes\nnot queued: busy (working)\n", out.String())
}

// Shipping asks first: --yes goes on, no terminal refuses (exit 2), and
// only "y" or "yes" on the terminal goes on.
func TestShippingAsksFirst(t *testing.T) {
	ask := func(ios *cmdutil.IOStreams, yes bool) error {
		return askFirst(ios, yes, "queue --ship", nil, "Ship these 2 worktree(s) in this order?", "not shipped")
	}
	ios, _, errOut := cmdtest.Streams("")
	require.NoError(t, ask(ios, true))
	require.Empty(t, errOut.String())

	err := ask(ios, false)
	require.Equal(t, cmdutil.UsageError{Msg: "queue --ship needs confirmation: pass --yes"}, err)
	require.Empty(t, errOut.String(), "nobody to ask")

	for answer, goOn := range map[string]bool{"y\n": true, " YES \n": true, "n\n": false, "\n": false, "": false, "yep\n": false} {
		ios, _, errOut := cmdtest.Streams(answer)
		ios.InTTY = true
		err := ask(ios, false)
		require.Equal(t, "Ship these 2 worktree(s) in this order? [y/N] ", errOut.String())
		if goOn {
			require.NoError(t, err, "%q", answer)
		} else {
			require.EqualError(t, err, "not shipped", "%q", answer)
		}
	}

	// The report is shown before the question, blockers marked.
	ios, _, errOut = cmdtest.Streams("n\n")
	ios.InTTY = true
	report := func() (land.Report, error) {
		return land.Report{Name: "api", Branch: "feat/api", Base: "main", DirtyFiles: []string{"a.go"}}, nil
	}
	require.Error(t, askFirst(ios, false, "merge", report, "Merge feat/api into main?", "not merged"))
	require.Regexp(t, `(?s)^api \(feat/api → main\)\n.*uncommitted: 1 file\(s\): a\.go\n.*\n  ! [^\n]+\nMerge feat/api into main\? \[y/N\] $`, errOut.String())
}
