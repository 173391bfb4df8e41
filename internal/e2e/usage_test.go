package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Bad usage is exit 2 in every command, with one line naming the problem,
// and changes nothing.
func TestBadUsageExitsTwo(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "existing", "Existing work")
	e.Eventually(5*time.Second, "shell session settles", func() bool { return e.Find(repo, "existing").Status == "idle" })
	before := e.snapshot(repo)
	for _, c := range []struct {
		args     []string
		contains string
	}{
		{[]string{"nosuch"}, `no command "nosuch"`},
		{[]string{"config", "nosuch"}, `no command "nosuch"`},
		{[]string{"tmux", "nosuch"}, `no command "nosuch"`},
		{[]string{"new"}, "empty task"},
		{[]string{"new", "--no-agent", "  "}, "empty task"},
		{[]string{"--bogus", "list"}, "flag provided but not defined: --bogus"},
		{[]string{"list", "--bogus"}, "flag provided but not defined: --bogus"},
		{[]string{"delete", "existing", "--json"}, "--json goes with --dry-run"},
		{[]string{"status", "existing", "--nope"}, "flag provided but not defined: --nope"},
		{[]string{"delete"}, "delete takes one NAME"},
		{[]string{"delete", "existing", "other"}, "delete takes one NAME"},
		{[]string{"status", "existing", "other"}, "status takes one NAME"},
		{[]string{"why", "existing", "other"}, "why takes one NAME"},
		{[]string{"--log-format", "xml", "list"}, "--log-format"},
		{[]string{"list", "extra"}, "list takes no arguments"},
		{[]string{"config", "show", "extra"}, "takes no arguments"},
		{[]string{"config", "validate", "extra"}, "takes no arguments"},
		{[]string{"tools", "extra"}, "takes no arguments"},
		{[]string{"tmux", "keys", "extra"}, "takes no arguments"},
		{[]string{"wait"}, "at least one NAME"},
		{[]string{"-L", "a", "-S", "/tmp/b", "list"}, "give one"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := e.Owt(repo, c.args...)
			requireOneLineError(t, r, c.contains)
			require.Equal(t, 2, r.Code, r.Stderr)
			require.Equal(t, before, e.snapshot(repo), "nothing changed")
		})
	}
}

// A NAME with no worktree behind it gets the same exit code, 3, from every
// command that takes one.
func TestNoSuchWorktreeExitsThreeEverywhere(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "existing", "Existing work")
	e.Eventually(5*time.Second, "shell session settles", func() bool { return e.Find(repo, "existing").Status == "idle" })
	before := e.snapshot(repo)
	for _, args := range [][]string{
		{"send", "ghost", "hello"}, {"delete", "ghost"}, {"delete", "ghost", "--force"},
		{"switch", "ghost"}, {"attach", "ghost"}, {"status", "ghost"}, {"why", "ghost"}, {"why", "ghost", "--json"}, {"check", "ghost"},
		{"merge", "ghost", "--yes"}, {"ship", "ghost", "--yes"}, {"sync", "ghost"},
		{"wait", "ghost"}, {"wait", "existing", "ghost", "--timeout", "1s"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := e.Owt(repo, args...)
			requireOneLineError(t, r, `no such worktree "ghost"`)
			require.Equal(t, 3, r.Code, r.Stderr)
			require.Equal(t, before, e.snapshot(repo), "nothing changed")
		})
	}
}

// git puts what to do on the line after the error; owt's one line keeps it.
func TestGitErrorKeepsItsHint(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	// A worktree git still lists but whose folder is gone, where owt would
	// put the new one.
	stale := filepath.Join(e.Root, "app.worktrees", "foo")
	e.Git(repo, "worktree", "add", "-q", "-b", "other", stale)
	require.NoError(t, os.RemoveAll(stale))
	r := e.Owt(repo, "new", "--no-agent", "--no-setup", "--name", "foo", "Task")
	requireOneLineError(t, r, "missing but already registered worktree")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "use 'add -f' to override, or 'prune' or 'remove' to clear")
	require.NotContains(t, r.Stderr, "…")
}

// A repository with no commit, and a bare one, get a sentence saying what
// is wrong, not git's own text.
func TestEmptyAndBareRepositoriesAreExplained(t *testing.T) {
	e := NewEnv(t)
	empty := filepath.Join(e.Root, "empty")
	require.NoError(t, os.MkdirAll(empty, 0o755))
	e.Git(empty, "init", "-q", "-b", "main")
	r := e.Owt(empty, "new", "--no-agent", "--no-setup", "Task")
	requireOneLineError(t, r, "no commits yet: make a first commit")
	require.Equal(t, 1, r.Code)
	require.NotContains(t, r.Stderr, "fatal:")
	require.Empty(t, e.Git(empty, "branch", "--list"))
	require.NoDirExists(t, filepath.Join(e.Root, "empty.worktrees", "task"))
	require.Empty(t, e.List(empty), "no record left")

	bare := filepath.Join(e.Root, "bare.git")
	e.Git(e.Root, "init", "-q", "--bare", bare)
	for _, args := range [][]string{{"list"}, {"new", "--no-agent", "Task"}} {
		r := e.Owt(bare, args...)
		requireOneLineError(t, r, "is a bare repository")
		require.Equal(t, 1, r.Code)
		require.NotContains(t, r.Stderr, "fatal:")
	}
	r = e.Owt(filepath.Join(e.NewRepo("app"), ".git"), "list")
	requireOneLineError(t, r, "inside a .git directory")
}

// Outside tmux, OWT_TMUX_SOCKET, -S PATH and -L NAME choose the tmux
// server, as tmux's own -S and -L do; records name that server.
func TestChooseTmuxServerFromOutside(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	other := filepath.Join(e.Root, "other.sock")
	startServer(t, e, "-S", other)
	named := filepath.Join(e.Var("TMUX_TMPDIR"), fmt.Sprintf("tmux-%d", os.Getuid()), "third")
	startServer(t, e, "-L", "third")

	onServer := func(socket, session string) bool {
		out, err := exec.Command("tmux", "-S", socket, "list-sessions", "-F", "#{session_name}").Output()
		return err == nil && strings.Contains("\n"+string(out), "\n"+session+"\n")
	}
	for _, c := range []struct {
		name   string
		env    []string
		args   []string
		socket string
	}{
		{"env", []string{"OWT_TMUX_SOCKET=" + other}, nil, other},
		{"S", nil, []string{"-S", other}, other},
		{"L", nil, []string{"-L", "third"}, named},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "on-" + strings.ToLower(c.name)
			args := append(append([]string{}, c.args...), "new", "--no-agent", "--no-setup", "--name", name, "Task")
			r := e.OwtIn(repo, c.env, "", args...)
			require.Equal(t, 0, r.Code, r.Stderr)
			session := "app/" + name
			require.True(t, onServer(c.socket, session), "session made on the chosen server")
			require.False(t, onServer(e.Socket, session), "not on the default server")

			var socket string
			st := readStateFile(t, e)
			for _, rec := range st {
				if rec.Name == name {
					socket = rec.Socket
				}
			}
			require.Equal(t, c.socket, socket, "the record names the chosen server")

			// The same server answers later commands.
			r = e.OwtIn(repo, c.env, "", append(append([]string{}, c.args...), "status", name)...)
			require.Equal(t, 0, r.Code, r.Stderr)
			require.NotContains(t, r.Stdout, "no session")
			r = e.OwtIn(repo, c.env, "", append(append([]string{}, c.args...), "delete", name)...)
			require.Equal(t, 0, r.Code, r.Stderr)
			require.False(t, onServer(c.socket, session))
		})
	}
}

// startServer starts a second private tmux server with the world's
// environment; it is killed when the test ends.
func startServer(t *testing.T, e *Env, sel ...string) {
	t.Helper()
	args := append(append([]string{}, sel...), "-f", "/dev/null", "new-session", "-d", "-s", "harness", "-x", "200", "-y", "50")
	cmd := exec.Command("tmux", args...)
	cmd.Env = e.Environ()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() {
		// Twice, a monitor tick apart: a run engine that was starting a
		// task as the server went starts a new server with its
		// new-session (a race of the monitor's, in the note of the day).
		// The world's own cleanup then waits for its monitor to go.
		for i := 0; i < 2; i++ {
			kill := exec.Command("tmux", append(append([]string{}, sel...), "kill-server")...)
			kill.Env = e.Environ()
			_ = kill.Run()
			time.Sleep(1500 * time.Millisecond)
		}
	})
}

// stateRecord is the part of a state record these tests read.
type stateRecord struct {
	Name   string `json:"name"`
	Socket string `json:"socket"`
}

func readStateFile(t *testing.T, e *Env) []stateRecord {
	t.Helper()
	var out []stateRecord
	for _, r := range e.allRecords() {
		name, _ := r["name"].(string)
		socket, _ := r["socket"].(string)
		out = append(out, stateRecord{Name: name, Socket: socket})
	}
	return out
}

// A config problem names its file and key once, and a mistyped value does
// not hide the unknown keys of the same file.
func TestConfigErrorsNameFileAndKeyOnce(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	file := filepath.Join(repo, ".owt.toml")

	e.WriteFile(repo, ".owt.toml", "[worktree]\nport_base = \"x\"\nbogus = 1\n[agent]\nnope = true\n")
	r := e.Owt(repo, "list")
	requireOneLineError(t, r, file+":2: worktree.port_base: must be an integer, not a string")
	require.Equal(t, 1, strings.Count(r.Stderr, "config:"), r.Stderr)
	require.Contains(t, r.Stderr, "(and 2 more; run 'owt config validate')")
	r = e.Owt(repo, "config", "validate")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, file+":2: worktree.port_base: must be an integer, not a string\n")
	require.Contains(t, r.Stderr, file+": worktree.bogus: unknown key\n")
	require.Contains(t, r.Stderr, file+": agent.nope: unknown key\n")
	require.NotContains(t, r.Stderr, "incompatible types", "said in words")

	// Checks on the merged config still name the file that set the key.
	for _, c := range []struct{ toml, want string }{
		{"[tools.x]\nprompt = \"zz\"\n", file + ": tools.x.prompt: must be"},
		{"[tools.x]\ncommand = [\"x\"]\nready = \"(\"\n", file + ": tools.x.ready: invalid regex"},
		{"[worktree]\ndir = \"/tmp/fixed\"\n", file + ": worktree.dir: must contain {name}"},
	} {
		e.WriteFile(repo, ".owt.toml", c.toml)
		for _, args := range [][]string{{"list"}, {"new", "--no-agent", "Task"}, {"tools"}} {
			r := e.Owt(repo, args...)
			requireOneLineError(t, r, c.want)
			require.Equal(t, 1, strings.Count(r.Stderr, "config:"), r.Stderr)
		}
		r := e.Owt(repo, "config", "validate")
		require.Equal(t, 1, r.Code)
		require.Contains(t, r.Stderr, c.want)
		require.Equal(t, 1, strings.Count(r.Stderr, c.want), "reported once: %s", r.Stderr)
	}
	require.Empty(t, e.Git(repo, "branch", "--list", "feat/*"))
}
