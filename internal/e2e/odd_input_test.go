package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Odd input is shown and named as it is: names without escape fragments,
// a note shown inert, a clear that says it removed nothing, a shell not
// called an agent, work landed elsewhere not called lost, flags named as
// typed, the branch blamed for being in use.
func TestOddInputIsShownAndNamedAsItIs(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")

	r := e.Owt(repo, "note", "--clear")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "no note was set: nothing to remove")
	e.MustOwt(repo, "note", "use \x1b[2Jtabs\x07 please\r!")
	shown := e.MustOwt(repo, "note")
	require.NotContains(t, shown, "\x1b")
	require.NotContains(t, shown, "\x07")
	require.NotContains(t, shown, "\r")
	require.Contains(t, shown, `use \x1b[2Jtabs\a please\r!`)

	out := e.MustOwt(repo, "new", "--json", "--no-agent", "--no-setup", "fix \x1b]0;pwn\x07 login bug\x1b[2J")
	require.Contains(t, out, `"name": "login-bug"`, out)

	sh := e.shell(repo, "sh")
	out = e.MustOwt(repo, "check", "sh")
	require.NotContains(t, out, "agent idle", out)
	require.Contains(t, out, "a shell (no agent)", out)

	r = e.Owt(repo, "new", "--no-agent", "-- -- --")
	requireOneLineError(t, r, "flag provided but not defined: -- -- --")
	require.Equal(t, 2, r.Code)

	r = e.Owt(repo, "new", "--no-agent", "--no-setup", "--branch", "main", "br test")
	requireOneLineError(t, r, `branch "main" already exists`)
	require.NotContains(t, r.Stderr, "name ")

	// Landed in main with --into after its base was deleted: not lost.
	e.Git(repo, "branch", "dev", "main")
	dv := e.shell(repo, "dv", "--base", "dev")
	e.commitIn(dv.Path, "dv.txt", "dv\n", "dv work")
	e.Git(repo, "branch", "-D", "dev")
	e.MustOwt(repo, "merge", "dv", "--into", "main", "--keep", "--yes")
	r = e.Owt(repo, "delete", "dv")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.NotContains(t, r.Stderr, "would lose work")
	require.Contains(t, e.Git(repo, "log", "--format=%s", "main"), "dv work")
	_ = sh
}
