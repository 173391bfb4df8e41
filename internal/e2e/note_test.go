package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

const (
	noteBegin = "<!-- owt:note begin -->"
	noteEnd   = "<!-- owt:note end -->"
)

func noteFileText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

func TestNoteGoesWhereEachAgentReadsItAndGitDoesNot(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.withUserFiles(repo)
	exclude := filepath.Join(repo, ".git", "info", "exclude")
	// The user ignores CLAUDE.local.md themselves (so owt excluding it too
	// hides nothing git showed).
	f, err := os.OpenFile(exclude, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("CLAUDE.local.md\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	cl := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "cl", "Task cl")
	mine := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "mine", "Task mine")
	cx := newJSON(t, e, repo, "--tool", "codex", "--no-setup", "--name", "cx", "Task cx")
	gm := newJSON(t, e, repo, "--tool", "gemini", "--no-setup", "--name", "gm", "Task gm")
	oc := newJSON(t, e, repo, "--tool", "opencode", "--no-setup", "--name", "oc", "Task oc")
	ad := newJSON(t, e, repo, "--tool", "aider", "--no-setup", "--name", "ad", "Task ad")
	sh := e.shell(repo, "sh")
	excludeBefore := noteFileText(t, exclude) // hook settings of the agents are in it already
	e.WriteFile(mine.Path, "CLAUDE.local.md", "# my own local notes\n")

	r := e.Owt(repo, "note", "--json", "The API runs on port 5432.\nDo not touch migrations/.")
	require.Equal(t, 0, r.Code, r.Stderr)
	var run struct {
		Note      string
		Worktrees []struct{ Name, File, Action, Reason string }
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &run), r.Stdout)
	got := map[string]string{}
	for _, w := range run.Worktrees {
		got[w.Name] = w.Action + " " + filepath.Base(w.File) + w.Reason
	}
	require.Equal(t, map[string]string{
		"cl":   "written CLAUDE.local.md",
		"mine": "skipped .claude: CLAUDE.local.md exists and owt did not create it; owt never writes into your files (use --send)",
		"cx":   "written AGENTS.override.md",
		"gm":   "skipped .gemini reads GEMINI.md, which belongs to the project; owt does not write it (use --send)",
		"oc":   "skipped .opencode reads AGENTS.md, which belongs to the project; owt does not write it (use --send)",
		"ad":   "skipped .aider reads no instructions file by itself (use --send)",
		"sh":   "skipped .no agent runs there",
	}, got)

	note := "The API runs on port 5432.\nDo not touch migrations/."
	for _, f := range []string{filepath.Join(cx.Path, "AGENTS.override.md"), filepath.Join(cl.Path, "CLAUDE.local.md")} {
		body := noteFileText(t, f)
		require.True(t, strings.HasPrefix(body, noteBegin+"\n"), body)
		require.Contains(t, body, note+"\n"+noteEnd+"\n")
	}
	require.Equal(t, "# my own local notes\n", noteFileText(t, filepath.Join(mine.Path, "CLAUDE.local.md")), "the user's file is not touched")
	for _, f := range []string{filepath.Join(gm.Path, "GEMINI.md"), filepath.Join(oc.Path, "AGENTS.md")} {
		require.NoFileExists(t, f, "owt never creates a file the project may mean to commit")
	}

	// Git sees none of it, in the worktrees or in the user's checkout.
	for _, it := range []Item{cl, mine, cx, gm, oc, ad, sh} {
		status := e.Git(it.Path, "status", "--porcelain", "--untracked-files=all", "--ignored=no")
		for _, f := range []string{"CLAUDE.local.md", "AGENTS", "GEMINI.md"} {
			require.NotContains(t, status, f, "%s: git sees the note file", it.Name)
		}
	}
	require.Empty(t, e.Git(repo, "status", "--porcelain"))
	require.Contains(t, noteFileText(t, exclude), "/CLAUDE.local.md\n")
	require.NotContains(t, noteFileText(t, exclude), "/AGENTS.md")
	require.NotContains(t, noteFileText(t, exclude), "/GEMINI.md")

	// A new text replaces the block; there is only ever one.
	e.MustOwt(repo, "note", "Use Postgres 16.")
	body := noteFileText(t, filepath.Join(cl.Path, "CLAUDE.local.md"))
	require.Equal(t, 1, strings.Count(body, noteBegin))
	require.Contains(t, body, "Use Postgres 16.")
	require.NotContains(t, body, "5432")
	require.Equal(t, "Use Postgres 16.\n", e.MustOwt(repo, "note"))

	// Worktrees created later get it too.
	later := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "later", "Task later")
	require.Contains(t, noteFileText(t, filepath.Join(later.Path, "CLAUDE.local.md")), "Use Postgres 16.")
	require.Empty(t, e.Git(later.Path, "status", "--porcelain"))

	// --clear: blocks gone, files owt created gone, the user's file as it was,
	// info/exclude as it was.
	e.MustOwt(repo, "note", "--clear")
	require.Equal(t, "# my own local notes\n", noteFileText(t, filepath.Join(mine.Path, "CLAUDE.local.md")))
	for _, f := range []string{filepath.Join(cx.Path, "AGENTS.override.md"), filepath.Join(cl.Path, "CLAUDE.local.md"),
		filepath.Join(later.Path, "CLAUDE.local.md")} {
		require.NoFileExists(t, f)
	}
	require.Equal(t, excludeBefore, noteFileText(t, exclude))
	require.Empty(t, e.MustOwt(repo, "note"))
	e.requireUserFiles(repo, "note")

	// A worktree with a note file is still deleted cleanly.
	e.MustOwt(repo, "note", "again")
	e.MustOwt(repo, "delete", "later", "--yes")
	e.requireGone(repo, later)
}

func TestNoteNeverWritesTrackedFiles(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.commitIn(repo, "AGENTS.md", "# project rules\n", "agents")
	e.commitIn(repo, "GEMINI.md", "# gemini rules\n", "gemini")
	e.commitIn(repo, ".gemini/settings.json", `{"context": {"fileName": ["GEMINI.md", "TEAM.md"]}}`, "gemini settings")
	cx := newJSON(t, e, repo, "--tool", "codex", "--no-setup", "--name", "cx", "Task cx")
	gm := newJSON(t, e, repo, "--tool", "gemini", "--no-setup", "--name", "gm", "Task gm")
	oc := newJSON(t, e, repo, "--tool", "opencode", "--no-setup", "--name", "oc", "Task oc")

	// Written nowhere: exit 1, saying so.
	r := e.Owt(repo, "note", "Shared context")
	require.Equal(t, 1, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "the note was written into none of the 3 worktree(s)")
	out := r.Stdout
	require.Contains(t, out, "cx: skipped: codex: the worktree has an AGENTS.md, and an AGENTS.override.md would hide it")
	require.Contains(t, out, "oc: skipped: opencode reads AGENTS.md")
	require.Contains(t, out, "gm: skipped: gemini reads GEMINI.md")
	require.NoFileExists(t, filepath.Join(gm.Path, "TEAM.md"))
	for _, it := range []Item{cx, oc} {
		require.Equal(t, "# project rules\n", noteFileText(t, filepath.Join(it.Path, "AGENTS.md")))
		require.NoFileExists(t, filepath.Join(it.Path, "AGENTS.override.md"))
		require.Empty(t, e.Git(it.Path, "status", "--porcelain"))
	}
	require.Equal(t, "# gemini rules\n", noteFileText(t, filepath.Join(gm.Path, "GEMINI.md")))
	require.Empty(t, e.Git(gm.Path, "status", "--porcelain"))
}

func TestNoteSendReachesIdleAgents(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	a := e.agentIdle(repo, "a")
	b := e.agentIdle(repo, "b")
	busy := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "busy", "!sleep 60")
	e.WaitPrompts(busy.Name, 1)

	out := e.MustOwt(repo, "note", "--send", "Rebase on main before you finish.")
	require.Contains(t, out, "sent to a")
	require.Contains(t, out, "sent to b")
	require.NotContains(t, out, "sent to busy")
	require.Equal(t, "Rebase on main before you finish.", e.WaitPrompts(a.Name, 2)[1])
	require.Equal(t, "Rebase on main before you finish.", e.WaitPrompts(b.Name, 2)[1])
	require.Len(t, e.Prompts(busy.Name), 1, "a working agent is not interrupted")
}

// agentIdle starts a fake claude that does one quick turn and waits until
// owt says it is idle.
func (e *Env) agentIdle(repo, name string) Item {
	e.t.Helper()
	it := newJSON(e.t, e, repo, "--tool", "claude", "--no-setup", "--name", name, "Say hello")
	e.WaitPrompts(name, 1)
	e.Eventually(20*time.Second, name+" idle", func() bool { return e.Find(repo, name).Status == "idle" })
	return it
}

func TestNoteNeverHidesOrTakesOverFilesThatAreNotOwts(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	exclude := filepath.Join(repo, ".git", "info", "exclude")
	cl := newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "cl", "Task cl")
	cx := newJSON(t, e, repo, "--tool", "codex", "--no-setup", "--name", "cx", "Task cx")
	oc := newJSON(t, e, repo, "--tool", "opencode", "--no-setup", "--name", "oc", "Task oc")
	// The user keeps an untracked CLAUDE.local.md in their checkout, and
	// the opencode agent wrote an AGENTS.md it means to commit.
	e.WriteFile(repo, "CLAUDE.local.md", "# mine, not ignored\n")
	e.WriteFile(oc.Path, "AGENTS.md", "# rules the agent wrote\n")

	out := e.MustOwt(repo, "note", "Shared context")
	require.Contains(t, out, "cl: skipped: claude: listing CLAUDE.local.md in info/exclude would hide the untracked "+filepath.Join(repo, "CLAUDE.local.md"))
	require.Contains(t, out, "oc: skipped: opencode reads AGENTS.md")
	require.Contains(t, out, "wrote the note into "+filepath.Join(cx.Path, "AGENTS.override.md"))
	require.NotContains(t, noteFileText(t, exclude), "/CLAUDE.local.md")
	require.NotContains(t, noteFileText(t, exclude), "/AGENTS.md")
	require.Equal(t, "?? CLAUDE.local.md", e.Git(repo, "status", "--porcelain"), "the user's file stays visible to git")
	require.Equal(t, "?? AGENTS.md", e.Git(oc.Path, "status", "--porcelain"), "the agent's file stays visible to git")
	require.Equal(t, "# rules the agent wrote\n", noteFileText(t, filepath.Join(oc.Path, "AGENTS.md")))
	require.NoFileExists(t, filepath.Join(cl.Path, "CLAUDE.local.md"))

	// An AGENTS.md appears in the codex worktree later: it is the agent's
	// or the user's. The next note takes owt's override away, so codex
	// reads that file, and leaves it visible to git.
	e.WriteFile(cx.Path, "AGENTS.md", "# new rules\n")
	r := e.Owt(repo, "note", "Newer context")
	require.Equal(t, 1, r.Code, "written nowhere: %s", r.Stderr)
	out = r.Stdout
	require.Contains(t, out, "cx: skipped: codex: the worktree has an AGENTS.md")
	require.NoFileExists(t, filepath.Join(cx.Path, "AGENTS.override.md"))
	require.Equal(t, "?? AGENTS.md", e.Git(cx.Path, "status", "--porcelain"))

	// Deleting a worktree counts that AGENTS.md as work.
	r = e.Owt(repo, "delete", "cx", "--yes")
	requireOneLineError(t, r, "AGENTS.md")
	require.DirExists(t, cx.Path)
}

// A note owt cannot record is not left in the worktrees: they would hold a
// block 'owt note --clear' knows nothing of. The state dir is a full disk
// (a tiny tmpfs, which needs root; elsewhere the test says so and skips).
func TestNoteThatCannotBeRecordedIsTakenOutAgain(t *testing.T) {
	fixture.NeedRoot(t, "the test mounts a 64 KiB tmpfs as owt's notes dir to fill it")
	e := NewEnv(t)
	repo := e.NewRepo("app")
	a := e.newAgent(repo, "a", "claude")
	notes := filepath.Join(e.Root, "state", "owt", "notes")
	require.NoError(t, os.MkdirAll(notes, 0o700))
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", notes).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill, though root (%v: %s)", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", notes).Run() })
	fill, err := os.Create(filepath.Join(notes, "fill"))
	require.NoError(t, err)
	_, _ = fill.Write(make([]byte, 1<<20)) // until the disk is full
	require.NoError(t, fill.Close())

	r := e.Owt(repo, "note", "remember the style guide")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "taken out of the worktrees again")
	_, err = os.Stat(filepath.Join(a.Path, "CLAUDE.local.md"))
	require.True(t, os.IsNotExist(err), "the file owt made for the note is gone again")

	require.NoError(t, os.Remove(filepath.Join(notes, "fill")))
	e.MustOwt(repo, "note", "remember the style guide")
	require.FileExists(t, filepath.Join(a.Path, "CLAUDE.local.md"))
}

// owt note that reached no worktree says so and exits 1.
func TestNoteWrittenNowhereFails(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.commitIn(repo, "AGENTS.md", "# project rules\n", "agents")
	oc := newJSON(t, e, repo, "--tool", "opencode", "--no-setup", "--name", "oc", "Task oc")

	r := e.Owt(repo, "note", "Shared context")
	require.Equal(t, 1, r.Code, r.Stdout)
	require.Contains(t, r.Stdout, "oc: skipped: opencode reads AGENTS.md")
	requireOneLineError(t, r, "the note was written into none of the 1 worktree(s)")
	require.NoFileExists(t, filepath.Join(oc.Path, "AGENTS.override.md"))

	// A claude worktree takes it: written somewhere, exit 0.
	newJSON(t, e, repo, "--tool", "claude", "--no-setup", "--name", "cl", "Task cl")
	r = e.Owt(repo, "note", "Shared context")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "CLAUDE.local.md")
}
