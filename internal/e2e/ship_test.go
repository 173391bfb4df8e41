package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestShipCommitsEverythingMergesAndTearsDown(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	e.WriteFile(repo, ".env", userFiles[".env"]) // copied into new worktrees
	w := e.agentDoing(repo, "feature", "!write src/new.go package src\n!write README.md # changed by the agent")
	require.FileExists(t, filepath.Join(w.Path, ".env"), "owt copied .env in")
	e.WriteFile(w.Path, "notes/extra.txt", "also shipped\n")
	require.NoError(t, os.Remove(filepath.Join(w.Path, ".gitignore")))

	out := e.MustOwt(repo, "ship", "feature", "-m", "Ship the feature", "--yes")
	require.Contains(t, out, "committed 4 file(s) in feature")
	require.Contains(t, out, "merged feat/feature into main")
	require.Equal(t, "Ship the feature", e.Git(repo, "log", "-1", "--format=%s", "main"))
	files := e.Git(repo, "show", "--name-status", "--format=", "main")
	require.Equal(t, "D\t.gitignore\nM\tREADME.md\nA\tnotes/extra.txt\nA\tsrc/new.go", files,
		"new, changed and deleted files; never the copied .env")
	require.NoFileExists(t, filepath.Join(repo, ".gitignore"))
	e.requireUserFiles(repo, "ship")
	e.requireGone(repo, w)
}

func TestShipUsesTheTaskAndRefusesEmptyOrConflicting(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)

	empty := e.shell(repo, "empty")
	before := e.snapshot(repo)
	r := e.Owt(repo, "ship", "empty", "--yes")
	requireOneLineError(t, r, "nothing to ship")
	require.Equal(t, before, e.snapshot(repo))

	// A change that is already on main is an empty result.
	e.commitIn(repo, "same.txt", "same\n", "main has it")
	e.commitIn(empty.Path, "same.txt", "same\n", "the agent did the same")
	before = e.snapshot(repo)
	r = e.Owt(repo, "ship", "empty", "--yes")
	requireOneLineError(t, r, "empty")
	require.Equal(t, before, e.snapshot(repo))

	// Uncommitted work that conflicts with main: refused before committing.
	e.commitIn(repo, "shared.txt", "base\n", "shared")
	c := e.shell(repo, "clash")
	e.commitIn(repo, "shared.txt", "the user's\n", "user edits")
	e.WriteFile(c.Path, "shared.txt", "the agent's\n")
	branch := e.Git(repo, "rev-parse", c.Branch)
	wtBefore, repoBefore := digest(t, c.Path), digest(t, repo)
	r = e.Owt(repo, "ship", "clash", "--yes")
	requireOneLineError(t, r, "conflicts with main in shared.txt")
	require.Equal(t, branch, e.Git(repo, "rev-parse", c.Branch), "no commit was made")
	require.Equal(t, wtBefore, digest(t, c.Path))
	require.Equal(t, repoBefore, digest(t, repo))

	// The task is the default message.
	ok := e.shell(repo, "ok")
	e.WriteFile(ok.Path, "ok.txt", "ok\n")
	r = e.Owt(repo, "ship", "ok", "--yes", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var res struct {
		Committed      string
		CommittedFiles []string `json:"committed_files"`
		Removed        bool
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &res), r.Stdout)
	require.Equal(t, []string{"ok.txt"}, res.CommittedFiles)
	require.True(t, res.Removed)
	require.Equal(t, "Work on ok", e.Git(repo, "log", "-1", "--format=%s", "main"))
	e.requireUserFiles(repo, "ship")
}

func TestQueueOrdersThreeWorktreesWithOneConflictAndShipsUntilIt(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	e.commitIn(repo, "shared.txt", "line\n", "shared")
	// a and c both rewrite shared.txt's line: whichever lands second
	// conflicts. b touches nothing of theirs. a is smaller than c.
	a := e.agentDoing(repo, "a", `!write shared.txt from a
!commit a: shared`)
	b := e.agentDoing(repo, "b", `!write b.txt b1\nb2\nb3\nb4\nb5\nb6
!commit b: own file`)
	c := e.agentDoing(repo, "c", `!write shared.txt from c\nand more\nand more`)
	busy := e.shell(repo, "shell")
	e.WriteFile(busy.Path, "x.txt", "x\n")

	r := e.Owt(repo, "queue", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	var q struct {
		Queue []struct {
			Name, Status       string
			Ahead, Uncommitted int
			Clean              bool
			Conflicts          []string
		}
		Skipped []struct{ Name, Reason string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &q), r.Stdout)
	var order []string
	for _, e := range q.Queue {
		order = append(order, e.Name)
	}
	require.Equal(t, []string{"b", "a", "c"}, order, "no conflicts first, then fewest, then smallest")
	require.True(t, q.Queue[0].Clean)
	require.True(t, q.Queue[1].Clean)
	require.False(t, q.Queue[2].Clean)
	require.Equal(t, []string{"shared.txt"}, q.Queue[2].Conflicts)
	require.Equal(t, 1, q.Queue[2].Uncommitted, "c's work is uncommitted; the queue predicts with it")
	require.Equal(t, "exited", q.Queue[0].Status)
	require.Equal(t, []struct{ Name, Reason string }{{"shell", "no agent (ship it by name)"}}, q.Skipped)

	text := e.MustOwt(repo, "queue")
	require.Contains(t, text, "conflicts in shared.txt")

	mainBefore := e.Git(repo, "rev-parse", "main")
	r = e.Owt(repo, "queue", "--ship", "--yes")
	require.Equal(t, 1, r.Code, r.Stdout)
	requireOneLineError(t, r, "stopped at c: it conflicts with main in shared.txt; left: c")
	require.Equal(t, []string{"Merge branch 'feat/a' into main", "b: own file"},
		strings.Split(e.Git(repo, "log", "--first-parent", "--format=%s", mainBefore+"..main"), "\n"),
		"b landed first (a fast-forward), then a")
	data, _ := os.ReadFile(filepath.Join(repo, "shared.txt"))
	require.Equal(t, "from a\n", string(data))
	e.requireGone(repo, a)
	e.requireGone(repo, b)
	require.DirExists(t, c.Path, "the conflicting one is left as it was")
	data, _ = os.ReadFile(filepath.Join(c.Path, "shared.txt"))
	require.Equal(t, "from c\nand more\nand more\n", string(data))
	e.requireUserFiles(repo, "queue --ship")
}

func TestLandingCommandsNeedAYesWithoutATerminal(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	w := e.shell(repo, "w")
	e.commitIn(w.Path, "w.txt", "w\n", "w")
	s := e.shell(repo, "s")
	e.WriteFile(s.Path, "more.txt", "uncommitted\n")
	done := e.shell(repo, "done")
	e.commitIn(done.Path, "d.txt", "d\n", "done")
	e.Git(repo, "merge", "-q", "--no-ff", "-m", "merge by hand", done.Branch)
	a := e.agentDoing(repo, "a", "!write a.txt a")
	mainBefore := e.Git(repo, "rev-parse", "main")
	before := e.snapshot(repo)
	wtBefore, sBefore := digest(t, w.Path), digest(t, s.Path)

	// stdin is not a terminal here, as in a script or an agent's shell.
	for _, c := range []struct{ args []string }{
		{[]string{"merge", "w"}},
		{[]string{"ship", "s"}},
		{[]string{"cleanup"}},
		{[]string{"queue", "--ship"}},
	} {
		r := e.OwtIn(repo, nil, "y\n", c.args...)
		require.Equal(t, 2, r.Code, "%v: %s", c.args, r.Stderr)
		requireOneLineError(t, r, c.args[0]+map[bool]string{true: " --ship", false: ""}[c.args[0] == "queue"]+" needs confirmation: pass --yes")
		require.Equal(t, before, e.snapshot(repo), "%v changed something", c.args)
		require.Equal(t, mainBefore, e.Git(repo, "rev-parse", "main"), "%v", c.args)
		require.Equal(t, wtBefore, digest(t, w.Path), "%v", c.args)
		require.Equal(t, sBefore, digest(t, s.Path), "%v", c.args)
	}
	e.requireKept(repo, done)
	e.requireKept(repo, a)
	// --dry-run and the plain queue ask nothing, so they need no --yes.
	require.Contains(t, e.MustOwt(repo, "cleanup", "--dry-run"), "would remove done")
	require.Contains(t, e.MustOwt(repo, "queue"), "merges cleanly")
}

func TestQueueShipShipsOnlyTheWorktreesItShowed(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	a := e.agentDoing(repo, "a", "!write a.txt a")
	b := e.agentDoing(repo, "b", "Say hello") // finished, nothing to ship yet
	// While a is shipped (its commit runs this hook), b gains a change: it
	// was not in the list shown, so it must not be shipped in this run.
	hook := filepath.Join(repo, ".git", "hooks", "post-commit")
	e.WriteFile(filepath.Dir(hook), "post-commit", "#!/bin/sh\n[ \"$(basename \"$PWD\")\" = a ] && echo late > '"+filepath.Join(b.Path, "late.txt")+"'\nexit 0\n")
	require.NoError(t, os.Chmod(hook, 0o755))

	r := e.Owt(repo, "queue", "--json")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, `"name": "a"`)
	require.Contains(t, r.Stdout, `"reason": "no changes"`)

	out := e.MustOwt(repo, "queue", "--ship", "--yes")
	require.Contains(t, out, "merged feat/a into main")
	require.NotContains(t, out, "feat/b")
	require.Contains(t, out, "shipped 1 worktree(s)")
	e.requireGone(repo, a)
	e.requireKept(repo, b)
	require.FileExists(t, filepath.Join(b.Path, "late.txt"), "b's late change is left where it was")
	require.Equal(t, "?? late.txt", e.Git(b.Path, "status", "--porcelain"))
	require.NotContains(t, e.Git(repo, "ls-tree", "--name-only", "main"), "late.txt")
}
