package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNewNoAgentMakesBranchWorktreeSessionAndCopiesFiles(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".env", "SECRET=1\n")
	require.NoError(t, os.Chmod(filepath.Join(repo, ".env"), 0o600))
	e.WriteFile(repo, "web/.env.local", "LOCAL=1\n")
	e.WriteFile(repo, ".envrc", "export X=1\n")
	e.WriteFile(repo, "notes.txt", "not copied\n")
	e.WriteFile(repo, "shared/cache.bin", "cache\n")
	e.WriteFile(repo, ".owt.toml", "[worktree]\nlink = [\"shared\"]\n")

	r := e.Owt(repo, "new", "--no-agent", "Add user authentication with JWT")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "add-user-authentication-jwt")
	// .envrc matches [worktree] copy, but git does not ignore it: in the
	// worktree the agent's "git add -A" would commit it.
	require.Contains(t, r.Stderr, "not copied .envrc: git does not ignore it")

	wt := filepath.Join(e.Root, "app.worktrees", "add-user-authentication-jwt")
	require.Equal(t, "feat/add-user-authentication-jwt", e.Git(wt, "rev-parse", "--abbrev-ref", "HEAD"))
	require.Equal(t, e.Git(repo, "rev-parse", "main"), e.Git(wt, "rev-parse", "HEAD"))

	// .env-style files git ignores are copied with their mode; others are not.
	info, err := os.Stat(filepath.Join(wt, ".env"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	require.NoFileExists(t, filepath.Join(wt, ".envrc"))
	require.Empty(t, e.Git(wt, "status", "--porcelain"), "nothing for the agent to commit")
	for _, f := range []string{".env", "web/.env.local"} {
		want, _ := os.ReadFile(filepath.Join(repo, f))
		got, err := os.ReadFile(filepath.Join(wt, f))
		require.NoError(t, err, f)
		require.Equal(t, string(want), string(got))
	}
	require.NoFileExists(t, filepath.Join(wt, "notes.txt"))
	target, err := os.Readlink(filepath.Join(wt, "shared"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(repo, "shared"), target)
	// The link is excluded from git, so it is not the agent's work.
	require.NotContains(t, e.Git(wt, "status", "--porcelain"), "shared")

	items := e.ListFresh(repo)
	require.Len(t, items, 1)
	it := items[0]
	require.Equal(t, "add-user-authentication-jwt", it.Name)
	require.Equal(t, "main", it.Base)
	require.Equal(t, wt, it.Path)
	require.Equal(t, "app/add-user-authentication-jwt", it.Session)
	require.True(t, it.Live)
	require.GreaterOrEqual(t, it.Port, 1024)
	require.Equal(t, 0, it.Dirty, "copied files are not work")

	// The session runs in the worktree with base-index 1 honoured (targets
	// are ids), and carries OWT_* in its environment.
	require.Contains(t, e.Sessions(), "app/add-user-authentication-jwt")
	require.Equal(t, wt, e.PaneCwd("app/add-user-authentication-jwt"))
	env := e.Tmux("show-environment", "-t", "app/add-user-authentication-jwt")
	require.Contains(t, env, "OWT_NAME=add-user-authentication-jwt")
	require.Contains(t, env, "OWT_REPO="+repo)
	require.Contains(t, env, "OWT_PORT=")
	e.Eventually(5*time.Second, "status idle", func() bool { return e.Find(repo, it.Name).Status == "idle" })
}

func TestNamesFromHostileTasksAreValid(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	tasks := map[string]string{
		"Fix login redirect":                        "fix/login-redirect",
		"Refactor the session store":                "refactor/session-store",
		"docs: explain setup":                       "docs/explain-setup",
		`Use "quotes" and $(rm -rf /) ; echo pwned`: "feat/use-quotes-rm-rf-echo-pwned",
		"Café naïve résumé":                         "feat/cafe-naive-resume",
		"日本語のタスク":                                   "feat/task",
		"line one\nline two":                        "feat/line-one-line-two",
		strings.Repeat("word ", 2000):               "",
		"-rf --help":                                "feat/rf-help",
	}
	for task, want := range tasks {
		r := e.Owt(repo, "new", "--no-agent", "--no-setup", "--json", "--", task)
		require.Equal(t, 0, r.Code, "task %q: %s", task, r.Stderr)
		var it Item
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &it))
		if want != "" {
			require.Equal(t, want, it.Branch, "task %q", task)
		}
		require.LessOrEqual(t, len(strings.SplitN(it.Branch, "/", 2)[1]), 50)
		e.Git(repo, "check-ref-format", "--branch", it.Branch)
		require.DirExists(t, it.Path)
		require.Equal(t, strings.TrimSpace(task), it.Task)
	}
	// A taken name gets -2, -3.
	var branches []string
	for i := 0; i < 3; i++ {
		r := e.Owt(repo, "new", "--no-agent", "--no-setup", "--json", "Fix the parser")
		require.Equal(t, 0, r.Code, r.Stderr)
		var it Item
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &it))
		branches = append(branches, it.Branch)
	}
	require.Equal(t, []string{"fix/parser", "fix/parser-2", "fix/parser-3"}, branches)
}

func TestNewExplicitNameBranchBase(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Git(repo, "checkout", "-q", "-b", "develop")
	e.WriteFile(repo, "dev.txt", "dev\n")
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "dev")
	e.Git(repo, "checkout", "-q", "main")

	e.MustOwt(repo, "new", "--no-agent", "--name", "login", "--branch", "wip/login", "--base", "develop", "Fix login")
	it := e.Find(repo, "login")
	require.Equal(t, "wip/login", it.Branch)
	require.Equal(t, "develop", it.Base)
	require.FileExists(t, filepath.Join(it.Path, "dev.txt"))

	// An explicit name that is taken is an error, not a silent rename.
	r := e.Owt(repo, "new", "--no-agent", "--name", "login", "Other")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "is in use")
	require.Len(t, e.List(repo), 1)
}

func TestDeleteRefusesToLoseWork(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".env", "SECRET=1\n")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "w1", "Work")
	it := e.Find(repo, "w1")

	// Uncommitted work: refused, nothing changed.
	e.WriteFile(it.Path, "work.txt", "precious\n")
	r := e.Owt(repo, "delete", "w1")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "uncommitted")
	require.Equal(t, 1, strings.Count(strings.TrimSpace(r.Stderr), "\n")+1, "one line: %q", r.Stderr)
	require.FileExists(t, filepath.Join(it.Path, "work.txt"))
	require.Contains(t, e.Sessions(), it.Session)

	// Committed but unmerged: refused.
	e.Git(it.Path, "add", "work.txt")
	e.Git(it.Path, "commit", "-q", "-m", "work")
	r = e.Owt(repo, "delete", "w1", "--yes")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "commit")
	require.Equal(t, "feat/w1", e.Git(repo, "branch", "--list", "feat/w1", "--format=%(refname:short)"))

	// --keep-branch with --force keeps the commits reachable.
	e.MustOwt(repo, "delete", "w1", "--force", "--keep-branch")
	require.NoDirExists(t, it.Path)
	require.NotContains(t, e.Sessions(), it.Session)
	require.Equal(t, "feat/w1", e.Git(repo, "branch", "--list", "feat/w1", "--format=%(refname:short)"))
	require.Empty(t, e.List(repo))
	// The kept branch is the user's now: doctor never reports or deletes it.
	require.NotContains(t, e.Owt(repo, "doctor", "--json").Stdout, "feat/w1")
	// The user's own checkout is untouched.
	require.FileExists(t, filepath.Join(repo, ".env"))
}

func TestDeleteCleanWorktreeRemovesEverything(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".env", "SECRET=1\n")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "w1", "Work")
	it := e.Find(repo, "w1")
	e.MustOwt(repo, "delete", "w1")
	require.NoDirExists(t, it.Path)
	require.NotContains(t, e.Sessions(), it.Session)
	require.Empty(t, e.Git(repo, "branch", "--list", "feat/w1"))
	require.Empty(t, e.List(repo))
	require.NotContains(t, e.Git(repo, "worktree", "list"), "w1")

	// And with --force a dirty one goes too.
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "w2", "Work")
	it = e.Find(repo, "w2")
	e.WriteFile(it.Path, "junk.txt", "x\n")
	e.MustOwt(repo, "delete", "w2", "--force")
	require.NoDirExists(t, it.Path)
	require.Empty(t, e.Git(repo, "branch", "--list", "feat/w2"))
}

func TestListIsPerRepoAndAllShowsRepo(t *testing.T) {
	e := NewEnv(t)
	a := e.NewRepo("alpha")
	b := e.NewRepo("beta")
	e.MustOwt(a, "new", "--no-agent", "--no-setup", "Task in alpha")
	e.MustOwt(b, "new", "--no-agent", "--no-setup", "Task in beta")

	la := e.List(a)
	require.Len(t, la, 1)
	require.Equal(t, a, la[0].Repo)
	all := e.List(a, "--all")
	require.Len(t, all, 2)
	require.NotEqual(t, all[0].Port, all[1].Port, "port blocks are unique across repos")
	diff := all[0].Port - all[1].Port
	if diff < 0 {
		diff = -diff
	}
	require.GreaterOrEqual(t, diff, 10)

	table := e.MustOwt(a, "list", "--all")
	require.Contains(t, table, "REPO")
	require.Contains(t, table, b)
	table = e.MustOwt(a, "list")
	require.NotContains(t, table, "beta")
	require.Contains(t, table, "NAME")

	// Same folder name in two places: sessions stay distinct.
	other := filepath.Join(e.Root, "elsewhere")
	require.NoError(t, os.MkdirAll(other, 0o755))
	c := filepath.Join(other, "alpha")
	require.NoError(t, os.MkdirAll(c, 0o755))
	e.Git(c, "init", "-q", "-b", "main")
	e.Git(c, "commit", "-q", "--allow-empty", "-m", "init")
	e.MustOwt(c, "new", "--no-agent", "--no-setup", "Task in alpha")
	lc := e.List(c)
	require.Len(t, lc, 1)
	require.NotEqual(t, la[0].Session, lc[0].Session)
}

// listAfterCorruptState writes garbage over every record file of the
// repo "app" and runs owt list --json, which rebuilds them: the items it
// lists, the first record file's path and what list said on stderr. The
// monitor is held still meanwhile: it reads the records every second, and
// had it found the garbage first, it would have rebuilt them, saying so in
// its own log. A live agent's own owt (its hooks, its runner) may still
// find it first and rebuild the record where it runs: then the garbage
// was set aside all the same, and list had nothing to say.
func (e *Env) listAfterCorruptState(repo string) (items []Item, file, stderr string) {
	e.t.Helper()
	monitor := e.FreezeMonitor()
	defer func() { _ = syscall.Kill(monitor, syscall.SIGCONT) }()
	files := e.corruptState("app-*.json", "{garbage")
	r := e.Owt(repo, "list", "--json")
	require.Equal(e.t, 0, r.Code, r.Stderr)
	if !strings.Contains(r.Stderr, "corrupt") {
		e.t.Logf("owt list found no garbage: an agent's own owt rebuilt the records first")
		for _, f := range files {
			aside, _ := filepath.Glob(f + ".corrupt-*")
			require.NotEmpty(e.t, aside, "owt list said nothing of the corrupt %s, and no one set it aside", f)
		}
	}
	require.NoError(e.t, json.Unmarshal([]byte(r.Stdout), &items))
	return items, files[0], r.Stderr
}

func TestCorruptStateIsRecoveredFromGitAndTmux(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "keep", "Keep me")
	e.Eventually(5*time.Second, "session settles", func() bool { return e.Find(repo, "keep").Status == "idle" })
	// Someone's own worktree in owt's folder, under a name owt never
	// makes (NAME@HOST names an agent on a host): not rebuilt as a record.
	e.Git(repo, "worktree", "add", "-q", "-b", "mine", filepath.Join(filepath.Dir(repo), "app.worktrees", "x@y"))
	// No agent runs here, and the monitor is held: list finds the garbage.
	items, stateFile, said := e.listAfterCorruptState(repo)
	require.Contains(t, said, "corrupt")
	require.Len(t, items, 1)
	require.Equal(t, "keep", items[0].Name)
	require.Equal(t, "feat/keep", items[0].Branch)
	require.True(t, items[0].Live)
	aside, _ := filepath.Glob(stateFile + ".corrupt-*")
	require.Len(t, aside, 1)

	// The recovered record is usable: delete works.
	e.MustOwt(repo, "delete", "keep")
	require.Empty(t, e.List(repo))
}

func TestConfigShowAndValidate(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	userCfg := filepath.Join(e.Root, "config", "owt", "config.toml")
	e.WriteFile(filepath.Dir(userCfg), "config.toml", "[agent]\ntool = \"codex\"\n[worktree]\ncopy = [\".env\"]\n")
	e.WriteFile(repo, ".owt.toml", "[agent]\ntool = \"gemini\"\n[tools.mine]\ncommand = [\"mine\", \"--go\"]\nprompt = \"paste\"\nready = \"^> \"\n")

	out := e.MustOwt(repo, "config", "show")
	require.Contains(t, out, `tool = "gemini"`, "repo file wins over user file")
	require.Contains(t, out, `copy = [".env"]`, "user file wins over defaults")
	require.Contains(t, out, "[tools.mine]")
	require.Contains(t, e.MustOwt(repo, "config", "validate"), "valid")

	e.WriteFile(repo, ".owt.toml", "[agent]\ntoool = \"gemini\"\nauto_approve = \"yes\"\n")
	r := e.Owt(repo, "config", "validate")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, filepath.Join(repo, ".owt.toml"))
	require.Contains(t, r.Stderr, "auto_approve")

	e.WriteFile(repo, ".owt.toml", "[agent]\ntoool = \"gemini\"\n[wat]\nx = 1\n")
	r = e.Owt(repo, "config", "validate")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "agent.toool")
	require.Contains(t, r.Stderr, "wat")
	require.Contains(t, r.Stderr, ".owt.toml")

	// A bad config stops other commands with one line and no change.
	r = e.Owt(repo, "new", "--no-agent", "x")
	require.NotEqual(t, 0, r.Code)
	require.Equal(t, 1, len(strings.Split(strings.TrimSpace(r.Stderr), "\n")), r.Stderr)
	require.Empty(t, e.Git(repo, "branch", "--list", "feat/*"))
}

// Without a UTF-8 locale tmux prints non-ASCII bytes (owt's field
// separator among them) as '_' unless told its client speaks UTF-8.
func TestWorksWithoutAUTF8Locale(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Set("LANG", "C")
	e.Set("LC_ALL", "C")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "plain", "Plain locale")
	it := e.Find(repo, "plain")
	require.True(t, it.Live)
	require.Contains(t, e.Sessions(), it.Session)
}

// A tmux session someone made by hand with the name owt new would give
// (owt chooses the name before tmux's sessions are in, then checks): the
// new agent takes the next free name, the hand-made session is left as
// it is, and nothing of the name first chosen stays behind; an explicit
// --name of that session is refused with nothing made.
func TestNewAroundASessionMadeByHand(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Tmux("new-session", "-d", "-s", "app/login", "-c", repo)

	r := e.Owt(repo, "new", "--no-agent", "Fix login")
	require.Equal(t, 0, r.Code, r.Stderr)
	items := e.List(repo)
	require.Len(t, items, 1)
	require.Equal(t, "login-2", items[0].Name)
	require.Equal(t, "app/login-2", items[0].Session)
	require.Equal(t, repo, e.PaneCwd("=app/login:"), "the hand-made session is as it was")
	require.NoDirExists(t, filepath.Join(e.Root, "app.worktrees", "login"))
	require.Empty(t, e.Git(repo, "branch", "--list", "fix/login"))

	r = e.Owt(repo, "new", "--no-agent", "--name", "login", "Fix login again")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "tmux session app/login already exists")
	require.Len(t, e.List(repo), 1, "no record of the refused name")
	require.NoDirExists(t, filepath.Join(e.Root, "app.worktrees", "login"))
}

// Several owt new at once, all choosing the name a hand-made session
// holds: each takes another name (none fails on another's claim while it
// chooses again), and the session is left as it was.
func TestParallelNewsAroundASessionMadeByHand(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Tmux("new-session", "-d", "-s", "app/login", "-c", repo)
	items := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for _, r := range e.parallelOwt(repo, items, func(string) []string {
		return []string{"new", "--no-agent", "--no-setup", "Fix login"}
	}) {
		require.Equal(t, 0, r.Code, r.Stderr)
	}
	names := map[string]bool{}
	for _, it := range e.List(repo) {
		require.NotEqual(t, "login", it.Name)
		names[it.Name] = true
	}
	require.Len(t, names, len(items))
	require.Equal(t, repo, e.PaneCwd("=app/login:"))
}
