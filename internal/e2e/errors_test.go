package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// snapshot is everything a failed command must leave unchanged.
type snapshot struct {
	branches, worktrees, sessions, state string
}

func (e *Env) snapshot(repo string) snapshot {
	st := ""
	files, _ := filepath.Glob(filepath.Join(e.Root, "state", "owt", "repos", "*.json"))
	records, _ := filepath.Glob(filepath.Join(e.Root, "state", "owt", "repos", "*", "*.json"))
	for _, f := range append(files, records...) {
		b, _ := os.ReadFile(f)
		st += string(b)
	}
	return snapshot{
		branches:  e.Git(repo, "branch", "--list", "--format=%(refname)"),
		worktrees: e.Git(repo, "worktree", "list", "--porcelain"),
		sessions:  strings.Join(e.Sessions(), "\n"),
		state:     st,
	}
}

// settledSnapshot is a snapshot once it has held still for 2 s: the
// monitor's first look at a new agent (its reactions' bookkeeping) lands
// late on a busy machine, and is no change the command under test made.
func (e *Env) settledSnapshot(repo string) snapshot {
	e.t.Helper()
	cur, since := e.snapshot(repo), time.Now()
	for deadline := time.Now().Add(20 * time.Second); time.Since(since) < 2*time.Second && time.Now().Before(deadline); {
		time.Sleep(250 * time.Millisecond)
		if next := e.snapshot(repo); next != cur {
			cur, since = next, time.Now()
		}
	}
	return cur
}

func requireOneLineError(t *testing.T, r fixture.Result, contains string) {
	t.Helper()
	require.NotEqual(t, 0, r.Code, "stdout: %s", r.Stdout)
	msg := strings.TrimSpace(r.Stderr)
	require.NotEmpty(t, msg)
	require.NotContains(t, msg, "\n", "one line on stderr")
	require.True(t, strings.HasPrefix(msg, "owt: "), msg)
	require.Contains(t, strings.ToLower(msg), strings.ToLower(contains))
}

func TestBadInputsChangeNothing(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "existing", "Existing work")
	e.Eventually(5*time.Second, "shell session settles", func() bool { return e.Find(repo, "existing").Status == "idle" })
	before := e.snapshot(repo)

	notRepo := filepath.Join(e.Root, "plain")
	require.NoError(t, os.MkdirAll(notRepo, 0o755))

	noTmuxPath := filepath.Join(e.Root, "notmux")
	require.NoError(t, os.MkdirAll(noTmuxPath, 0o755))
	for _, b := range []string{"git", "sh"} {
		p, err := lookPathIn(b, os.Getenv("PATH"))
		require.NoError(t, err)
		require.NoError(t, os.Symlink(p, filepath.Join(noTmuxPath, b)))
	}
	onlyGit := []string{"PATH=" + noTmuxPath}

	cases := []struct {
		name     string
		dir      string
		env      []string
		args     []string
		contains string
		code     int
	}{
		{"not a git repo", notRepo, nil, []string{"new", "Do things"}, "not a git repository", 1},
		{"list outside repo", notRepo, nil, []string{"list"}, "not a git repository", 1},
		{"empty task", repo, nil, []string{"new", "   "}, "empty task", 2},
		{"no task", repo, nil, []string{"new"}, "empty task", 2},
		{"unknown tool", repo, nil, []string{"new", "--tool", "nope", "Do things"}, "unknown tool", 2},
		{"tool not installed", repo, []string{"PATH=" + noTmuxPath}, []string{"new", "--tool", "claude", "Do things"}, "npm install -g @anthropic-ai/claude-code", 1},
		{"tmux missing", repo, onlyGit, []string{"new", "--no-agent", "Do things"}, "tmux is not installed", 1},
		{"unknown name send", repo, nil, []string{"send", "ghost", "hello"}, "no such worktree", 3},
		{"unknown name delete", repo, nil, []string{"delete", "ghost"}, "no such worktree", 3},
		{"unknown name switch", repo, nil, []string{"switch", "ghost"}, "no such worktree", 3},
		{"invalid branch", repo, nil, []string{"new", "--no-agent", "--branch", "bad..name", "Do things"}, "invalid branch", 2},
		{"name in use", repo, nil, []string{"new", "--no-agent", "--no-setup", "--name", "existing", "Do things"}, `name "existing" is in use: owt already has a worktree with that name`, 1},
		{"invalid name", repo, nil, []string{"new", "--no-agent", "--name", "../escape", "Do things"}, "invalid name", 2},
		{"unknown base", repo, nil, []string{"new", "--no-agent", "--base", "nope", "Do things"}, "unknown base", 2},
		{"plan without plan mode", repo, nil, []string{"new", "--tool", "pi", "--plan", "Do things"}, "no plan mode", 2},
		{"send without text", repo, nil, []string{"send", "existing"}, "TEXT", 2},
		{"send to a shell", repo, nil, []string{"send", "existing", "rm -rf ~"}, "not running", 1},
		{"unknown flag", repo, nil, []string{"new", "--bogus", "x"}, "bogus", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.OwtIn(c.dir, c.env, "", c.args...)
			requireOneLineError(t, r, c.contains)
			require.Equal(t, c.code, r.Code, r.Stderr)
			require.Equal(t, before, e.snapshot(repo), "nothing changed")
		})
	}

	// tmux not running: commands that need the server say so.
	e.Tmux("kill-server")
	r := e.Owt(repo, "switch", "existing")
	requireOneLineError(t, r, "has no tmux session")
}

func lookPathIn(bin, path string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, bin)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", os.ErrNotExist
}

// A '#' in a repo's folder name reaches tmux only as text: tmux expands
// formats in new-session -s and -c, and "#(…)" would run a command.
func TestHashInRepoPathIsNotATmuxFormat(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("we#(touch${IFS}owt-pwned)ir#{pane_id}x")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "t1", "Task")
	it := e.Find(repo, "t1")
	require.True(t, it.Live, "the recorded session is the real one: %s", it.Session)
	require.NotContains(t, it.Session, "#")
	require.Equal(t, it.Path, e.PaneCwd(it.Session))
	for _, dir := range []string{repo, e.Root, e.Home, it.Path} {
		require.NoFileExists(t, filepath.Join(dir, "owt-pwned"))
	}
	e.MustOwt(repo, "delete", "t1")
	require.NotContains(t, e.Sessions(), it.Session)
}

// Bad input says what was wrong in the user's own words and exits 2 when
// the input itself is wrong; nothing changes.
func TestBadInputIsNamedAsTypedAndExitsTwo(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	before := e.snapshot(repo)

	r := e.Owt(repo, "list", "--bogus")
	require.Equal(t, 2, r.Code)
	require.Equal(t, "owt: flag provided but not defined: --bogus\n", r.Stderr)
	r = e.Owt(repo, "new", "--tool", "claude", "--name")
	require.Equal(t, 2, r.Code)
	require.Contains(t, r.Stderr, "--name", r.Stderr)
	require.NotContains(t, r.Stderr, " -name", r.Stderr)

	// owt new: every option that is wrong in itself is bad usage (2).
	for _, args := range [][]string{
		{"--tool", "nope"},
		{"--base", "nope"},
		{"--name", "../evil"},
		{"--branch", "a..b"},
	} {
		r := e.Owt(repo, append(append([]string{"new", "--no-setup"}, args...), "Do things")...)
		require.Equal(t, 2, r.Code, "%v: %s", args, r.Stderr)
		requireOneLineError(t, r, args[1])
	}

	// A run's bad --name is named as the --name, not "give --name".
	e.WriteFile(repo, "plan.toml", "[run]\ntool = \"claude\"\n\n[[task]]\nid = \"a\"\ntask = \"A\"\n")
	r = e.Owt(repo, "run", "start", "plan.toml", "--name", "../evil", "--dry-run")
	require.Equal(t, 2, r.Code, r.Stderr)
	requireOneLineError(t, r, `--name "../evil" cannot name a run`)
	require.NotContains(t, r.Stderr, "give --name")
	require.Equal(t, before, e.snapshot(repo))
}
