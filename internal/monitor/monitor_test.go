package monitor

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adrg/xdg"
	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/state"
	"github.com/owt-tmux/owt/internal/tmux"
)

// testServer starts a private tmux server (gone after the test) and points
// owt's state at a temp dir.
func testServer(t *testing.T) (sock string, tmx func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	xdg.Reload() // the XDG directories are read once, at start
	sock = filepath.Join(t.TempDir(), "tmux.sock")
	tmx = func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		require.NoError(t, err, "tmux %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	return sock, tmx
}

// agentSession starts a session whose pane stands for an agent, and a
// record of it made on this server.
func agentSession(t *testing.T, tmx func(...string) string, sock, repo, name string) *state.Record {
	t.Helper()
	ids := strings.Fields(tmx("new-session", "-d", "-s", "owt-"+name, "-P", "-F", "#{session_id} #{pane_id}", "sleep", "600"))
	require.Len(t, ids, 2)
	server, err := (&tmux.Client{Bin: "tmux", Socket: sock}).ServerIdentity()
	require.NoError(t, err)
	return &state.Record{
		Name: name, Repo: repo, Path: t.TempDir(), Session: "owt-" + name, SessionID: ids[0], Pane: ids[1],
		Socket: sock, Server: server, Tool: "opencode", Status: state.Working, Source: state.FromHook,
	}
}

func saveRecords(t *testing.T, repo string, recs ...*state.Record) {
	t.Helper()
	require.NoError(t, state.ForRepo(repo).Update(func(f *state.File) error {
		for _, r := range recs {
			f.Records[r.Name] = r
		}
		return nil
	}))
}

func record(t *testing.T, repo, name string) *state.Record {
	t.Helper()
	f, err := state.ForRepo(repo).Peek()
	require.NoError(t, err)
	r, ok := f.Records[name]
	require.True(t, ok, name)
	return r
}

func TestRenamedOrMovedSessionKeepsTheAgentAlive(t *testing.T) {
	sock, tmx := testServer(t)
	repo := t.TempDir()
	a := agentSession(t, tmx, sock, repo, "a")
	saveRecords(t, repo, a)

	m, log := watching(sock)
	now := time.Now()
	require.NoError(t, m.tick(now))

	// The user renames the session: the agent runs on.
	tmx("rename-session", "-t", "owt-a", "mine")
	for i := 1; i <= 3; i++ {
		require.NoError(t, m.tick(now.Add(time.Duration(i)*3*time.Second)))
	}
	r := record(t, repo, "a")
	require.Equal(t, state.Working, r.Status, log.String())
	require.Equal(t, "mine", r.Session, "the record follows the rename")
	require.Equal(t, a.SessionID, r.SessionID)
	require.NotContains(t, log.String(), "exited")

	// The user moves the pane into another session of theirs: still alive.
	tmx("new-session", "-d", "-s", "user", "sleep", "600")
	tmx("join-pane", "-s", a.Pane, "-t", "user:")
	for i := 4; i <= 6; i++ {
		require.NoError(t, m.tick(now.Add(time.Duration(i)*3*time.Second)))
	}
	require.Equal(t, state.Working, record(t, repo, "a").Status, log.String())

	// The pane goes: now it is an exit.
	tmx("kill-pane", "-t", a.Pane)
	for i := 7; i <= 8; i++ {
		require.NoError(t, m.tick(now.Add(time.Duration(i)*3*time.Second)))
	}
	require.Equal(t, state.Exited, record(t, repo, "a").Status, log.String())
}

func TestFirstLookMarksThisServersLostAgentsExited(t *testing.T) {
	sock, tmx := testServer(t)
	repo := t.TempDir()
	live := agentSession(t, tmx, sock, repo, "live")
	// Agents of this server before it restarted: pane and session gone.
	lost := &state.Record{Name: "lost", Repo: repo, Path: t.TempDir(), Session: "owt-lost", SessionID: "$90",
		Pane: "%90", Socket: sock, Tool: "claude", Status: state.Waiting, Source: state.FromHook}
	// Another server's agent, and one from before owt noted servers.
	other := &state.Record{Name: "other", Repo: repo, Path: t.TempDir(), Session: "owt-other", SessionID: "$91",
		Pane: "%91", Socket: filepath.Join(t.TempDir(), "other.sock"), Tool: "claude", Status: state.Working, Source: state.FromHook}
	legacy := &state.Record{Name: "legacy", Repo: repo, Path: t.TempDir(), Session: "owt-legacy", SessionID: "$92",
		Pane: "%92", Tool: "claude", Status: state.Working, Source: state.FromHook}
	saveRecords(t, repo, live, lost, other, legacy)

	m, log := watching(sock)
	now := time.Now()
	require.NoError(t, m.tick(now))
	require.Equal(t, state.Exited, record(t, repo, "lost").Status, log.String())
	require.Equal(t, state.Working, record(t, repo, "live").Status)
	require.Equal(t, state.Working, record(t, repo, "other").Status, "another server's agent is not this monitor's to judge")
	require.Equal(t, state.Working, record(t, repo, "legacy").Status)
	require.NoError(t, m.tick(now.Add(5*time.Second)))
	require.Equal(t, state.Working, record(t, repo, "other").Status)
	require.Equal(t, state.Working, record(t, repo, "legacy").Status)
}

func TestRecordCacheSeesAFileWrittenInPlace(t *testing.T) {
	_, _ = testServer(t)
	repo := t.TempDir()
	saveRecords(t, repo, &state.Record{Name: "a", Repo: repo, Path: repo, Session: "owt-a", Status: state.Working})
	c := newRecordCache(&tmux.Client{Bin: "tmux"})
	nolog := func(string, ...any) {}
	changed, err := c.refresh(nolog)
	require.NoError(t, err)
	require.True(t, changed)
	changed, err = c.refresh(nolog)
	require.NoError(t, err)
	require.False(t, changed, "nothing was written")

	// Rewritten in place (no rename: the directory's mtime stays).
	path := filepath.Join(state.ForRepo(repo).RecordsDir(), "a.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data = bytes.Replace(data, []byte(`"working"`), []byte(`"waiting"`), 1)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	changed, err = c.refresh(nolog)
	require.NoError(t, err)
	require.True(t, changed)
	require.Equal(t, state.Waiting, c.records[0].Status)
}

// After a restart tmux hands out the same ids again: a record of the old
// server must not take over the user's new session that got its ids.
func TestIdsFromAnEarlierServerRunAreNotTrusted(t *testing.T) {
	sock, tmx := testServer(t)
	repo := t.TempDir()
	mine := agentSession(t, tmx, sock, repo, "users-own")
	old := &state.Record{Name: "old", Repo: repo, Path: t.TempDir(), Session: "owt-old",
		SessionID: mine.SessionID, Pane: mine.Pane, Socket: sock, Server: "elsewhere:1:1",
		Tool: "claude", Status: state.Working, Source: state.FromHook}
	saveRecords(t, repo, old)

	m, log := watching(sock)
	now := time.Now()
	require.NoError(t, m.tick(now))
	r := record(t, repo, "old")
	require.Equal(t, "owt-old", r.Session, "never renamed to the user's session: %s", log.String())
	require.Equal(t, state.Exited, r.Status, "its server is gone, so is its agent")
	require.Contains(t, tmx("list-sessions", "-F", "#{session_name}"), "owt-users-own")
}

// An agent that exited and was started again (owt attach, owt restore)
// is a new life in a new pane: a look that predates its new session is no
// proof it is gone, whatever the monitor saw of the old life. (A loaded
// machine's look read the panes before attach made the session and the
// record after: the old life's sighting called the new one exited, a
// second "exited" notice.)
func TestAnAgentStartedAgainIsNotCalledGoneOnItsOldLifesSighting(t *testing.T) {
	sock, tmx := testServer(t)
	repo := t.TempDir()
	tmx("new-session", "-d", "-s", "user", "sleep", "600") // the server outlives the agent's session
	a := agentSession(t, tmx, sock, repo, "a")
	saveRecords(t, repo, a)

	m, log := watching(sock)
	now := time.Now()
	require.NoError(t, m.tick(now)) // seen alive in its pane

	// It exits (its SessionEnd hook says so) and its session goes.
	tmx("kill-session", "-t", "owt-a")
	a.Status, a.Source = state.Exited, state.FromHook
	saveRecords(t, repo, a)
	require.NoError(t, m.tick(now.Add(3*time.Second)))

	// owt attach starts it again: the record names its new pane, which
	// this look does not have yet.
	a.Status, a.Source, a.Pane, a.SessionID = state.Starting, state.FromOwt, "%77", "$77"
	saveRecords(t, repo, a)
	require.NoError(t, m.tick(now.Add(6*time.Second)))
	require.Equal(t, state.Starting, record(t, repo, "a").Status, log.String())
	require.NotContains(t, log.String(), "exited (its pane or session is gone)")

	// A new life no look ever sees (its session died at once) is gone
	// once the grace has passed for it.
	require.NoError(t, m.tick(now.Add(9*time.Second)))
	require.Equal(t, state.Exited, record(t, repo, "a").Status, log.String())
}

// watching is a monitor of the tmux server at sock, as Run makes it, and
// the log it writes.
func watching(sock string) (*monitor, *bytes.Buffer) {
	log := &bytes.Buffer{}
	m := newMonitor(&tmux.Client{Bin: "tmux", Socket: sock}, log)
	m.socket = sock
	m.identify()
	return m, log
}
