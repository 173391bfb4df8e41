package worktreecmd

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/urfave/cli/v2"

	"github.com/owt-tmux/owt/internal/cli/cmdtest"
	"github.com/owt-tmux/owt/internal/cli/cmdutil"
	"github.com/owt-tmux/owt/internal/lifecycle"
	"github.com/owt-tmux/owt/internal/state"
)

// newAs runs owt new in-process; run stands in for newRun.
func newAs(t *testing.T, run func(*newOptions) error, args ...string) (*newOptions, string, int) {
	t.Helper()
	var got *newOptions
	swap := func(f *cmdutil.Factory) *cli.Command {
		return NewCommand(f, func(o *newOptions) error { got = o; return run(o) })
	}
	_, stderr, code := cmdtest.RunAlone("", swap, append([]string{"new"}, args...)...)
	return got, stderr, code
}

func TestNewOptionsAsTyped(t *testing.T) {
	for _, c := range []struct {
		args []string
		want newOptions
	}{
		{[]string{"Fix", "login"}, newOptions{Create: lifecycle.CreateOptions{Task: "Fix login"}}},
		// Flags after the task, as people type them.
		{[]string{"Fix login", "--tool", "codex", "--base", "dev"}, newOptions{Create: lifecycle.CreateOptions{Task: "Fix login", Tool: "codex", Base: "dev"}}},
		{[]string{"--tool=codex", "Fix", "--name", "fx", "--branch", "fix/fx"}, newOptions{Create: lifecycle.CreateOptions{Task: "Fix", Tool: "codex", Name: "fx", Branch: "fix/fx"}}},
		{[]string{"Fix", "--no-agent", "--plan", "--no-setup", "--switch", "--json"}, newOptions{Create: lifecycle.CreateOptions{Task: "Fix", NoAgent: true, Plan: true, NoSetup: true}, Switch: true, JSON: true}},
		// After "--" a task may start with a dash.
		{[]string{"--", "--help me"}, newOptions{Create: lifecycle.CreateOptions{Task: "--help me"}}},
		{[]string{"--tool", "codex", "--", "-x", "--json"}, newOptions{Create: lifecycle.CreateOptions{Task: "-x --json", Tool: "codex"}}},
		// No task: Create says so (exit 2), the command line does not.
		{[]string{"--no-agent"}, newOptions{Create: lifecycle.CreateOptions{NoAgent: true}}},
		{[]string{"--template", "hotfix", "--dry-run", "Fix"}, newOptions{Create: lifecycle.CreateOptions{Task: "Fix", Template: "hotfix"}, DryRun: true}},
		{[]string{"--issue", "12"}, newOptions{Create: lifecycle.CreateOptions{Issue: 12}}},
	} {
		if c.want.Create.Template == "" {
			c.want.Create.Template = "auto" // guessed unless told
		}
		got, stderr, code := newAs(t, func(*newOptions) error { return nil }, c.args...)
		require.Equal(t, cmdutil.ExitOK, code, "%q: %s", c.args, stderr)
		require.NotNil(t, got, c.args)
		got.IO, got.Workspace, got.Tmux = nil, nil, nil
		require.Equal(t, c.want, *got, "%q", c.args)
	}
}

func TestNewBadUsageExitsTwo(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--name"}, "owt: flag needs an argument: --name\n"},
		{[]string{"--bogus", "Fix"}, "owt: flag provided but not defined: --bogus\n"},
		{[]string{"Fix", "-x"}, "owt: flag provided but not defined: -x\n"},
	} {
		got, stderr, code := newAs(t, func(*newOptions) error { return nil }, c.args...)
		require.Nil(t, got, c.args)
		require.Equal(t, cmdutil.ExitUsage, code, c.args)
		require.Equal(t, c.want, stderr, c.args)
	}
}

// What Create refuses for its options is bad usage (exit 2); any other
// failure is exit 1. Either is one line.
func TestNewCreateErrorsExitCodes(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
	}{
		{lifecycle.ErrEmptyTask, cmdutil.ExitUsage},
		{fmt.Errorf("--name %q: %w", "a b", lifecycle.ErrBadOption), cmdutil.ExitUsage},
		{errors.New("git worktree add: fatal: disk full"), cmdutil.ExitError},
	} {
		_, stderr, code := newAs(t, func(*newOptions) error { return createError(c.err) }, "Fix")
		require.Equal(t, c.code, code, "%v", c.err)
		require.Equal(t, "owt: "+c.err.Error()+"\n", stderr)
	}
}

func TestNewSaysWhatItMade(t *testing.T) {
	rec := &state.Record{Name: "fix-login", Tool: "claude", Branch: "fix/fix-login", Path: "/w/fix-login", Session: "repo_fix-login"}
	require.Equal(t, "fix-login: claude on fix/fix-login in /w/fix-login (tmux session repo_fix-login)", created(rec))
	rec.NoAgent = true
	require.Equal(t, "fix-login: shell on fix/fix-login in /w/fix-login (tmux session repo_fix-login)", created(rec))
}
