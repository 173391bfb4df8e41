package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// readText is the content of dir/rel; the test fails when it is missing.
func readText(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, rel))
	require.NoError(t, err)
	return string(b)
}

// editedCopies is edited_copies of owt check --json.
func (e *Env) editedCopies(repo, name string) []string {
	e.t.Helper()
	out := e.MustOwt(repo, "check", name, "--json")
	var rep struct {
		EditedCopies []string `json:"edited_copies"`
	}
	require.NoError(e.t, json.Unmarshal([]byte(out), &rep), out)
	return rep.EditedCopies
}

// An ignored file owt copied in (.env) and the agent then edited exists
// nowhere else: check lists it, delete refuses to lose it, and merge and
// ship land the branch but keep the worktree that holds it. The user's
// own .env is never written.
func TestEditedCopyOfAnIgnoredFileIsWork(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".env", "SECRET=main\n")

	// check and delete.
	del := e.shell(repo, "del")
	require.Equal(t, "SECRET=main\n", readText(t, del.Path, ".env"), "copied in")
	e.WriteFile(del.Path, ".env", "SECRET=edited by the agent\n")
	require.Equal(t, []string{".env"}, e.editedCopies(repo, "del"), "check --json lists the edited copy")
	require.Contains(t, e.MustOwt(repo, "check", "del"), "edited copies: .env")
	r := e.Owt(repo, "delete", "del", "--yes")
	requireOneLineError(t, r, ".env")
	require.NotContains(t, r.Stdout, "deleted")
	e.requireKept(repo, del)
	require.Equal(t, "SECRET=edited by the agent\n", readText(t, del.Path, ".env"))
	r = e.Owt(repo, "delete", "del", "--force", "--yes")
	require.Equal(t, 0, r.Code, r.Stderr)
	e.requireGone(repo, del)

	// ship: the commit never holds .env, the worktree stays with it.
	sh := e.shell(repo, "sh")
	e.WriteFile(sh.Path, "feature.txt", "feature\n")
	e.WriteFile(sh.Path, ".env", "SECRET=ship edit\n")
	r = e.Owt(repo, "ship", "sh", "--yes")
	require.NotEqual(t, 0, r.Code, "the worktree was not removed: %s", r.Stdout)
	require.Contains(t, r.Stdout, "merged feat/sh into main")
	require.Contains(t, r.Stderr, ".env")
	require.Contains(t, r.Stderr, "stays")
	require.Equal(t, "feature\n", e.Git(repo, "show", "main:feature.txt")+"\n")
	require.NotContains(t, e.Git(repo, "ls-tree", "-r", "--name-only", "main"), ".env")
	require.DirExists(t, sh.Path)
	require.Equal(t, "SECRET=ship edit\n", readText(t, sh.Path, ".env"))
	require.Equal(t, "SECRET=main\n", readText(t, repo, ".env"), "the user's .env is never written")
	e.Find(repo, "sh")

	// merge --json says why it kept the worktree.
	mg := e.shell(repo, "mg")
	e.commitIn(mg.Path, "m.txt", "m\n", "merge work")
	e.WriteFile(mg.Path, ".env", "SECRET=merge edit\n")
	r = e.Owt(repo, "merge", "mg", "--yes", "--json")
	require.NotEqual(t, 0, r.Code)
	var landed struct {
		Removed bool
		Kept    string
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &landed), r.Stdout)
	require.False(t, landed.Removed)
	require.Contains(t, landed.Kept, ".env")
	require.Equal(t, "m\n", e.Git(repo, "show", "main:m.txt")+"\n")
	require.Equal(t, "SECRET=merge edit\n", readText(t, mg.Path, ".env"))
	require.Equal(t, "SECRET=main\n", readText(t, repo, ".env"))

	// An unchanged copy whose source the user removed is the last copy.
	last := e.shell(repo, "last")
	require.NoError(t, os.Remove(filepath.Join(repo, ".env")))
	require.Equal(t, []string{".env"}, e.editedCopies(repo, "last"))
	requireOneLineError(t, e.Owt(repo, "delete", "last", "--yes"), ".env")
	e.requireKept(repo, last)

	// An unchanged copy is not work.
	e.WriteFile(repo, ".env", "SECRET=main\n")
	same := e.shell(repo, "same")
	require.Empty(t, e.editedCopies(repo, "same"))
	e.MustOwt(repo, "delete", "same", "--yes")
	e.requireGone(repo, same)
}

// owt new run from inside another agent's worktree (a subfolder of it)
// copies the main checkout's ignored files, not that worktree's: the
// files it reads ahead from where it runs are the main checkout's only
// when that is where it runs.
func TestNewFromALinkedWorktreeCopiesTheMainCheckoutsFiles(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".env", "SECRET=main\n")
	a := e.shell(repo, "a")
	require.Equal(t, "SECRET=main\n", readText(t, a.Path, ".env"))
	e.WriteFile(a.Path, ".env", "SECRET=a's own\n")
	e.WriteFile(a.Path, ".env.only-a", "A=1\n")
	sub := filepath.Join(a.Path, "src")
	require.NoError(t, os.MkdirAll(sub, 0o755))

	e.WriteFile(repo, ".env.local", "LOCAL=main\n") // the main checkout's, made after a

	b := e.shell(sub, "b")
	require.Equal(t, "SECRET=main\n", readText(t, b.Path, ".env"), "the main checkout's .env")
	require.Equal(t, "LOCAL=main\n", readText(t, b.Path, ".env.local"), "every ignored file of the main checkout")
	require.NoFileExists(t, filepath.Join(b.Path, ".env.only-a"), "a's own ignored file stays a's")

	// From a subfolder of the main checkout: its files, as from its top.
	msub := filepath.Join(repo, "docs")
	require.NoError(t, os.MkdirAll(msub, 0o755))
	c := e.shell(msub, "c")
	require.Equal(t, "SECRET=main\n", readText(t, c.Path, ".env"))
}
