package worktreecmd

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdtest"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/send"
	"github.com/owt-tmux/owt/internal/state"
)

// sendAs runs owt send in-process and returns the options it ran with
// (nil when the command line was refused before running).
func sendAs(t *testing.T, stdin string, args ...string) (*sendOptions, string, int) {
	t.Helper()
	var got *sendOptions
	swap := func(f *cmdutil.Factory) *cli.Command {
		return SendCommand(f, func(o *sendOptions) error { got = o; return nil })
	}
	_, stderr, code := cmdtest.RunAlone(stdin, swap, append([]string{"send"}, args...)...)
	return got, stderr, code
}

func TestSendOptionsAsTyped(t *testing.T) {
	for _, c := range []struct {
		args  []string
		stdin string
		want  sendOptions
	}{
		{args: []string{"w1", "fix", "the", "tests"}, want: sendOptions{Names: []string{"w1"}, Text: "fix the tests"}},
		{args: []string{"--json", "w1", "hi"}, want: sendOptions{Names: []string{"w1"}, Text: "hi", JSON: true}},
		// After the TEXT, flag-like words are text: --json and --all too.
		{args: []string{"w1", "fix it", "--json"}, want: sendOptions{Names: []string{"w1"}, Text: "fix it --json"}},
		{args: []string{"a", "fix", "--all", "the", "tests"}, want: sendOptions{Names: []string{"a"}, Text: "fix --all the tests"}},
		{args: []string{"--all", "run", "--json"}, want: sendOptions{Group: true, Text: "run --json"}},
		{args: []string{"w1", "--", "--help"}, want: sendOptions{Names: []string{"w1"}, Text: "--help"}},
		// ... but NAME --task [--json] are flags.
		{args: []string{"w1", "--task"}, want: sendOptions{Names: []string{"w1"}, Task: true}},
		{args: []string{"w1", "--json", "--task"}, want: sendOptions{Names: []string{"w1"}, Task: true, JSON: true}},
		{args: []string{"w1", "--task", "again"}, want: sendOptions{Names: []string{"w1"}, Text: "--task again"}},
		{args: []string{"--idle", "--working", "go on"}, want: sendOptions{Group: true, Statuses: []state.Status{state.Working, state.Idle}, Text: "go on"}},
		{args: []string{"--waiting", "--answer", "1"}, want: sendOptions{Group: true, Statuses: []state.Status{state.Waiting}, Answer: true, Text: "1"}},
		{args: []string{"--answer", "w1", "y"}, want: sendOptions{Names: []string{"w1"}, Answer: true, Text: "y"}},
		{args: []string{"w1", "-"}, stdin: "line one\nline two\r\n", want: sendOptions{Names: []string{"w1"}, Text: "line one\nline two"}},
	} {
		got, stderr, code := sendAs(t, c.stdin, c.args...)
		require.Equal(t, cmdutil.ExitOK, code, "%q: %s", c.args, stderr)
		require.NotNil(t, got, c.args)
		require.NotNil(t, got.Workspace, c.args)
		got.IO, got.Workspace = nil, nil
		require.Equal(t, c.want, *got, "%q", c.args)
	}
}

// Bad use is one line on stderr and exit 2, and nothing is sent.
func TestSendBadUsageSendsNothing(t *testing.T) {
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{args: []string{"--waiting", "hi"}, want: "send --waiting picks agents that wait on a prompt"},
		{args: []string{"--answer", "--all", "y"}, want: "send --answer answers prompts: name the agent"},
		{args: []string{"--answer", "--idle", "y"}, want: "send --answer answers prompts: name the agent"},
		{args: []string{"--all", "--task", "w1"}, want: "send --task takes one NAME and no TEXT"},
		{args: []string{"--task", "w1", "again"}, want: "send --task takes one NAME and no TEXT"},
		{args: []string{"w1"}, want: "send needs NAME and TEXT"},
		{args: []string{}, want: "send needs NAME and TEXT"},
		{args: []string{"--all"}, want: "send needs TEXT"},
		{args: []string{"w1", "  "}, want: "nothing to send: TEXT is empty"},
		{args: []string{"w1", "-"}, stdin: "\n", want: "nothing to send: TEXT is empty"},
		{args: []string{"--answer", "w1", "-"}, stdin: "1\n2\n", want: "send --answer takes one line"},
		{args: []string{"--bogus", "w1", "hi"}, want: "flag provided but not defined: --bogus"},
	} {
		got, stderr, code := sendAs(t, c.stdin, c.args...)
		require.Nil(t, got, "%q ran", c.args)
		require.Equal(t, cmdutil.ExitUsage, code, "%q", c.args)
		require.Contains(t, stderr, "owt: "+c.want, "%q", c.args)
		require.Equal(t, 1, countLines(stderr), "%q: %q", c.args, stderr)
	}
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}

func TestGroupSendSkipsAgentsThatCannotTakeText(t *testing.T) {
	recs := []*state.Record{
		{Name: "shell", NoAgent: true, Status: state.Idle},
		{Name: "gone", Status: state.Exited},
		{Name: "asks", Status: state.Waiting},
		{Name: "busy", Status: state.Working},
		{Name: "done", Status: state.Idle},
	}
	names := func(rs []*state.Record) (ns []string) {
		for _, r := range rs {
			ns = append(ns, r.Name)
		}
		return ns
	}

	ios, _, errOut := cmdtest.Streams("")
	o := &sendOptions{IO: ios, Group: true}
	require.Equal(t, []string{"busy", "done"}, names(o.sendable(recs)))
	require.Equal(t, "owt: skipped asks: it waits for you (see 'owt status asks')\n", errOut.String())

	ios, _, errOut = cmdtest.Streams("")
	o = &sendOptions{IO: ios, Group: true, Answer: true}
	require.Equal(t, []string{"asks", "busy", "done"}, names(o.sendable(recs)))
	require.Empty(t, errOut.String())
}

func TestSendReportsEachAgent(t *testing.T) {
	ios, out, errOut := cmdtest.Streams("")
	o := &sendOptions{IO: ios}
	err := o.report([]send.Result{{Name: "a", Sent: true}, {Name: "b", Answered: true}, {Name: "c", Err: "c: agent is not running"}})
	var ee cmdutil.CodeError
	require.True(t, errors.As(err, &ee), "%v", err)
	require.Equal(t, cmdutil.ExitError, ee.Code)
	require.Empty(t, ee.Msg) // each failure is already on stderr
	require.Equal(t, "sent to a\nanswered b's prompt\n", out.String())
	require.Equal(t, "owt: c: agent is not running\n", errOut.String())

	// One agent: its error is owt's error, said once by Main.
	ios, out, errOut = cmdtest.Streams("")
	o = &sendOptions{IO: ios}
	err = o.report([]send.Result{{Name: "c", Err: "c: agent is not running"}})
	require.EqualError(t, err, "c: agent is not running")
	require.Empty(t, out.String())
	require.Empty(t, errOut.String())

	ios, out, _ = cmdtest.Streams("")
	o = &sendOptions{IO: ios, JSON: true}
	require.NoError(t, o.report([]send.Result{{Name: "a", Sent: true}}))
	require.JSONEq(t, `[{"name":"a","sent":true}]`, out.String())
}
