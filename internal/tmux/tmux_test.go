package tmux

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEscapeArg(t *testing.T) {
	require.Equal(t, "plain", escapeArg("plain"))
	require.Equal(t, `ends\;`, escapeArg("ends;"))
	require.Equal(t, "mid;dle", escapeArg("mid;dle"))
}

// server starts a private tmux server for one test.
func server(t *testing.T) *Client {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "sock")
	c := &Client{Bin: "tmux", Socket: sock}
	out, err := exec.Command("tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "base", "-x", "120", "-y", "30").CombinedOutput()
	require.NoError(t, err, string(out))
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	return c
}

func TestSessionsOptionsAndBatch(t *testing.T) {
	c := server(t)
	dir := t.TempDir()
	created, err := c.NewSession(NewSession{
		Name: "repo/name;", Dir: dir,
		Env:  map[string]string{"OWT_NAME": "x;", "OWT_PORT": "20000"},
		Argv: []string{"sleep", "600"},
	})
	require.NoError(t, err)
	require.NoError(t, c.SetOption(created.SessionID, "@owt-name", "set first"))
	require.NoError(t, c.MarkSession(created.SessionID, map[string]string{"@owt-status": "starting;", "@owt-name": "n"}, nil))
	v, _ := c.ShowOption(created.SessionID, "@owt-name")
	require.Equal(t, "set first", v, "an option already set is newer and kept")
	v, _ = c.ShowOption("base", "@owt-name")
	require.Empty(t, v, "options land on the session named by id, no other")
	sv, err := c.Survey()
	require.NoError(t, err)
	require.Len(t, sv.Sessions, 2)
	require.Empty(t, sv.Clients)
	_, _, ok := sv.UserSize()
	require.False(t, ok, "no client attached")
	require.True(t, strings.HasPrefix(created.SessionID, "$"))
	require.True(t, strings.HasPrefix(created.PaneID, "%"))

	s, ok, err := c.FindSession("repo/name;")
	require.NoError(t, err)
	require.True(t, ok, "a trailing ';' is part of the name, not a separator")
	require.Equal(t, created.SessionID, s.ID)
	v, err = c.ShowOption(created.SessionID, "@owt-status")
	require.NoError(t, err)
	require.Equal(t, "starting;", v)
	env, err := c.Run("show-environment", "-t", created.SessionID, "OWT_NAME")
	require.NoError(t, err)
	require.Equal(t, "OWT_NAME=x;", env)

	require.NoError(t, c.SetOptions("", map[string]string{"@a": "1", "@b": "two words"}))
	v, _ = c.ShowOption("", "@b")
	require.Equal(t, "two words", v)

	require.NoError(t, c.KillSession(created.SessionID))
	require.NoError(t, c.KillSession(created.SessionID), "already gone is fine")
}

func TestOneArgvCommandIsRefused(t *testing.T) {
	c := server(t)
	_, err := c.NewSession(NewSession{Name: "x", Dir: t.TempDir(), Argv: []string{"echo hi; rm -rf /"}})
	require.Error(t, err, "a single string would go through sh -c")
}

func TestLiteralSendAndPaste(t *testing.T) {
	c := server(t)
	out := filepath.Join(t.TempDir(), "out")
	created, err := c.NewSession(NewSession{Name: "cat", Dir: t.TempDir(), Argv: []string{"sh", "-c", "stty raw -echo; cat > " + out}})
	require.NoError(t, err)
	require.NoError(t, c.SendLiteral(created.PaneID, "C-c Enter $(x) ;"))
	require.NoError(t, c.Paste(created.PaneID, "line1\nline2"))
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "line2")
	}, 5e9, 5e7)
	b, _ := os.ReadFile(out)
	// Key names stay words; the paste keeps LF (-r) so an application that
	// did not ask for bracketed paste does not read CR as "submit".
	require.Equal(t, "C-c Enter $(x) ;line1\nline2", string(b))
}

func TestNoServer(t *testing.T) {
	c := &Client{Bin: "tmux", Socket: filepath.Join(t.TempDir(), "none")}
	ss, err := c.Sessions()
	require.NoError(t, err)
	require.Empty(t, ss)
	require.False(t, c.Running())
	_, err = c.Run("list-sessions")
	require.ErrorIs(t, err, ErrNoServer)
}

func TestVersion(t *testing.T) {
	c := &Client{Bin: "tmux"}
	major, minor, err := c.Version()
	require.NoError(t, err)
	require.GreaterOrEqual(t, major*10+minor, 30)
}

// Options for many targets are set in as few tmux calls as fit: 600 in
// one call were refused whole ("command too long"), and the monitor then
// set each session's with a tmux process of its own (10 a second at 500
// agents).
func TestManyOptionSetsFitInAFewCalls(t *testing.T) {
	c := server(t)
	var sets []OptionSet
	for i := 0; i < 600; i++ {
		sets = append(sets, OptionSet{Options: map[string]string{fmt.Sprintf("@owt-many-%03d", i): "5h 42% · 7d 13% · resets 14:00"}})
	}
	require.Greater(t, len(batches(func() (cmds [][]string) {
		for _, s := range sets {
			cmds = append(cmds, setOptionCommands(s.Target, s.Options)...)
		}
		return cmds
	}())), 1, "too long for one call")
	require.NoError(t, c.SetOptionSetsContext(context.Background(), sets...))
	for _, i := range []int{0, 299, 599} {
		v, err := c.ShowOption("", fmt.Sprintf("@owt-many-%03d", i))
		require.NoError(t, err)
		require.Equal(t, "5h 42% · 7d 13% · resets 14:00", v)
	}

	out, err := c.RunBatch([]string{"display-message", "-p", "one"}, []string{"display-message", "-p", "two"})
	require.NoError(t, err)
	require.Equal(t, "one\ntwo", out)

}
