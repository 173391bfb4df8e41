package proctest

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/proc"
)

func run(args ...string) (string, string, error) {
	cmd := proc.Command(context.Background(), args[0], args[1:]...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.Stdin = strings.NewReader("in")
	err := proc.Run(context.Background(), cmd)
	return out.String(), errOut.String(), err
}

// A fake answers by the last rule that matches, starts nothing, and
// records every command with its stdin.
func TestFakeAnswersByTheLastMatchingRuleAndRecords(t *testing.T) {
	f := New(t)
	f.On("git").Reply("any git\n")
	f.On("git", "worktree", "add").Fail(128, "fatal: exists")
	f.On("tmux", "kill-session").Do(func(c Call) Reply { return Reply{Stdout: c.Args[len(c.Args)-1]} })

	out, _, err := run("git", "-C", "/r", "status")
	require.NoError(t, err)
	require.Equal(t, "any git\n", out)

	_, stderr, err := run("/usr/bin/git", "-C", "/r", "worktree", "add", "-b", "b", "/p")
	require.Equal(t, "fatal: exists", stderr)
	code, exited := proc.ExitCode(err)
	require.True(t, exited)
	require.Equal(t, 128, code)

	out, _, err = run("tmux", "-u", "kill-session", "-t", "$3")
	require.NoError(t, err)
	require.Equal(t, "$3", out)

	require.Len(t, f.Calls(""), 3)
	require.Equal(t, []Call{{Args: []string{"/usr/bin/git", "-C", "/r", "worktree", "add", "-b", "b", "/p"}, Stdin: "in"}}, f.Calls("git", "worktree", "add"))
	require.True(t, f.Ran("tmux", "kill-session", "-t", "$3"))
	require.False(t, f.Ran("tmux", "kill-session", "-t", "$4"))
	require.False(t, f.Ran("git", "add", "worktree"), "the arguments match in order")
	require.False(t, f.Ran("git", "-C"), "the program's own options are no command")
	require.True(t, f.Ran("git", "worktree", "/p"), "the arguments after the first need not be side by side")
	require.Equal(t, []string{"kill-session", "-t", "$3"}, f.Calls("tmux", "kill-session")[0].Words())
	require.Equal(t, "/r", f.Calls("git", "status")[0].Option("-C"))
	require.Equal(t, "", f.Calls("tmux", "kill-session")[0].Option("-S"))
}

// A command no rule answers fails the test that ran it, naming it.
func TestFakeFailsOnACommandNoRuleAnswers(t *testing.T) {
	rec := &recordingTB{TB: t}
	f := &Fake{t: rec}
	restore := proc.Use(f)
	defer restore()
	_, _, err := run("gh", "pr", "list")
	require.Error(t, err)
	require.Equal(t, []string{`proctest: no rule for "gh pr list"`}, rec.errors)
}

// The real runner is back once the test that put the fake in ends.
func TestUseRestoresTheRunnerBefore(t *testing.T) {
	t.Run("fake", func(t *testing.T) { New(t).On("true") })
	err := proc.Run(context.Background(), exec.Command("false"))
	_, exited := proc.ExitCode(err)
	require.True(t, exited, "false ran for real: %v", err)
	require.False(t, errors.As(err, new(*Exit)))
}

type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, strings.TrimSpace(fmt.Sprintf(format, args...)))
}
