package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
)

// The user's own settings, ignored by their .gitignore: owt merges its
// hooks in for an in-place agent and must put these exact bytes back.
const userSettings = "{\n    \"permissions\": {\"allow\": [\"Bash(make:*)\"]}\n}\n"

func inPlaceRepo(t *testing.T) (*Env, string) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".gitignore", ".claude/settings.local.json\n")
	e.Git(repo, "add", ".gitignore")
	e.Git(repo, "commit", "-q", "-m", "ignore personal settings")
	e.WriteFile(repo, ".claude/settings.local.json", userSettings)
	e.WriteFile(repo, "keep.txt", "the user's file\n")
	e.Git(repo, "add", "keep.txt")
	e.Git(repo, "commit", "-q", "-m", "a file of the user's")
	return e, repo
}

// inPlace starts an in-place agent with owt branch and returns it.
func inPlace(t *testing.T, e *Env, repo, name, script string) (Item, string) {
	t.Helper()
	out := e.MustOwt(repo, "branch", "--json", "--no-setup", "--tool", "claude", "--name", name, "--", script)
	var it Item
	require.NoError(t, json.Unmarshal([]byte(out), &it), out)
	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	require.Equal(t, true, raw["in_place"], "the record says in place: %s", out)
	require.Equal(t, repo, it.Path, "no worktree: the agent works in the checkout")
	require.Equal(t, it.Branch, e.Git(repo, "branch", "--show-current"), "the checkout is on the new branch")
	return it, out
}

// requireCheckoutSurvives fails unless the user's checkout is whole: its
// files, its git dir, the agent's branch, and the user's settings byte
// for byte with no trace of owt's hooks.
func requireCheckoutSurvives(t *testing.T, e *Env, repo string, it Item, what string) {
	t.Helper()
	require.DirExists(t, filepath.Join(repo, ".git"), what)
	require.FileExists(t, filepath.Join(repo, "keep.txt"), what)
	require.Equal(t, it.Branch, e.Git(repo, "branch", "--show-current"), "%s: the branch stays checked out", what)
	got, err := os.ReadFile(filepath.Join(repo, ".claude", "settings.local.json"))
	require.NoError(t, err, what)
	require.Equal(t, userSettings, string(got), "%s: the user's settings are back, byte for byte", what)
	require.NotContains(t, e.Sessions(), it.Session, what)
	for _, x := range e.List(repo) {
		require.NotEqual(t, it.Name, x.Name, "%s: record still there", what)
	}
	require.Empty(t, e.Git(repo, "status", "--porcelain"), "%s: nothing of owt's shows in git status", what)
}

func TestInPlaceRefusesADirtyOrDetachedCheckoutChangingNothing(t *testing.T) {
	e, repo := inPlaceRepo(t)
	head := e.Git(repo, "rev-parse", "HEAD")

	e.WriteFile(repo, "wip.txt", "untracked work\n")
	r := e.Owt(repo, "new", "--in-place", "--no-setup", "--tool", "claude", "Quick fix")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "uncommitted")
	require.Contains(t, r.Stderr, "wip.txt")
	require.Equal(t, "main", e.Git(repo, "branch", "--show-current"))
	require.FileExists(t, filepath.Join(repo, "wip.txt"), "never stashed")
	require.Empty(t, e.List(repo))
	require.NoError(t, os.Remove(filepath.Join(repo, "wip.txt")))

	e.WriteFile(repo, "keep.txt", "changed\n") // a tracked change
	r = e.Owt(repo, "branch", "--no-setup", "--tool", "claude", "Quick fix")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "keep.txt")
	require.Equal(t, "changed\n", readFile(filepath.Join(repo, "keep.txt")), "never reset")
	e.Git(repo, "checkout", "--", "keep.txt")

	e.Git(repo, "switch", "-q", "--detach", "HEAD")
	r = e.Owt(repo, "branch", "--no-setup", "--tool", "claude", "Quick fix")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "detached")
	require.Empty(t, e.List(repo))
	require.Equal(t, head, e.Git(repo, "rev-parse", "HEAD"))
	require.Equal(t, "", e.Git(repo, "branch", "--list", "feat/*"), "no branch was made")
}

func TestInPlaceAgentDeleteKeepsTheCheckoutAndBranch(t *testing.T) {
	e, repo := inPlaceRepo(t)
	it, _ := inPlace(t, e, repo, "quick", "!sleep 60s")
	e.Eventually(15*time.Second, "agent start", func() bool { _, ok := e.Start(it.Name); return ok })
	start, _ := e.Start(it.Name)
	require.Equal(t, repo, start.Cwd)
	require.Equal(t, it.Name, start.Env["OWT_NAME"])
	require.Equal(t, repo, start.Env["OWT_REPO"])
	require.NotEmpty(t, start.Env["OWT_PORT"])

	// owt's hooks are merged beside the user's settings, invisible to git.
	settings := readFile(filepath.Join(repo, ".claude", "settings.local.json"))
	require.Contains(t, settings, "Bash(make:*)")
	require.NotEmpty(t, fixture.HookCommands(t, filepath.Join(repo, ".claude", "settings.local.json"))["Stop"])
	require.Empty(t, e.Git(repo, "status", "--porcelain"))

	// Every view says in place.
	require.Contains(t, e.MustOwt(repo, "list"), "(in place)")
	require.Contains(t, e.MustOwt(repo, "status", "quick"), "works in place")

	// One in-place agent per checkout, even a clean one.
	r := e.Owt(repo, "branch", "--no-setup", "--tool", "claude", "Another")
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "one in-place agent per checkout")
	require.Len(t, e.List(repo), 1)
	require.Equal(t, it.Branch, e.Git(repo, "branch", "--show-current"))

	// Uncommitted work does not stop the delete: nothing is removed.
	e.WriteFile(repo, "a.txt", "work in progress\n")
	out := e.MustOwt(repo, "delete", "quick")
	require.Contains(t, out, "the branch "+it.Branch+" stays checked out in "+repo)
	require.Equal(t, "work in progress\n", readFile(filepath.Join(repo, "a.txt")), "the work stays")
	require.NoError(t, os.Remove(filepath.Join(repo, "a.txt")))
	requireCheckoutSurvives(t, e, repo, it, "delete")
	require.NotContains(t, readFile(filepath.Join(repo, ".git", "info", "exclude")), "settings.local.json", "owt's exclude line went with it")
}

func TestInPlaceMergeShipDoctorAndCleanupNeverRemoveTheCheckout(t *testing.T) {
	e, repo := inPlaceRepo(t)

	// merge: the branch lands on main (a ref, not the checkout, which is
	// on the branch); the checkout stays on the branch.
	it, _ := inPlace(t, e, repo, "m1", "!write m.txt merged\n!commit add m\n!exit 0")
	e.Eventually(20*time.Second, "m1 exited", func() bool { return e.Find(repo, "m1").Status == "exited" })
	out := e.MustOwt(repo, "merge", "m1", "--yes")
	require.Contains(t, out, "merged "+it.Branch+" into main")
	require.Contains(t, out, "stays checked out in "+repo)
	require.Equal(t, "add m", e.Git(repo, "log", "-1", "--format=%s", "main"))
	requireCheckoutSurvives(t, e, repo, it, "merge")
	e.Git(repo, "switch", "-q", "main")

	// merge after the user switched their checkout back to main (clean):
	// the branch merges as a branch, and main's checkout moves with it.
	it, _ = inPlace(t, e, repo, "m2", "!write m2.txt merged\n!commit add m2\n!exit 0")
	e.Eventually(20*time.Second, "m2 exited", func() bool { return e.Find(repo, "m2").Status == "exited" })
	e.Git(repo, "switch", "-q", "main")
	out = e.MustOwt(repo, "merge", "m2", "--yes")
	require.Contains(t, out, "checkout "+repo+" updated")
	require.Contains(t, out, "the branch "+it.Branch+" stays; your checkout "+repo+" is as you left it")
	require.FileExists(t, filepath.Join(repo, "m2.txt"))
	require.Equal(t, "main", e.Git(repo, "branch", "--show-current"))
	require.Equal(t, userSettings, readFile(filepath.Join(repo, ".claude", "settings.local.json")))
	require.NotEmpty(t, e.Git(repo, "branch", "--list", it.Branch), "the branch stays")
	require.Empty(t, e.Git(repo, "status", "--porcelain"))

	// ship: the agent's uncommitted work is committed in the checkout and
	// lands on main.
	it, _ = inPlace(t, e, repo, "s1", "!write s.txt shipped\n!exit 0")
	e.Eventually(20*time.Second, "s1 exited", func() bool { return e.Find(repo, "s1").Status == "exited" })
	out = e.MustOwt(repo, "ship", "s1", "-m", "Ship it", "--yes")
	require.Contains(t, out, "merged "+it.Branch+" into main")
	require.Equal(t, "Ship it", e.Git(repo, "log", "-1", "--format=%s", "main"))
	requireCheckoutSurvives(t, e, repo, it, "ship")
	e.Git(repo, "switch", "-q", "main")

	// doctor --fix: a lost session is recreated (a shell), nothing removed.
	it, _ = inPlace(t, e, repo, "d1", "!write d.txt x\n!commit add d\n!exit 0")
	e.Eventually(20*time.Second, "d1 exited", func() bool { return e.Find(repo, "d1").Status == "exited" })
	e.Tmux("kill-session", "-t", "="+it.Session+":")
	e.MustOwt(repo, "tmux", "init") // the keys, as a user's tmux.conf binds them
	e.MustOwt(repo, "doctor", "--fix")
	require.FileExists(t, filepath.Join(repo, "keep.txt"))
	require.Equal(t, it.Branch, e.Git(repo, "branch", "--show-current"))
	require.Len(t, e.List(repo), 1)

	// cleanup: its branch is merged (main moved to it), so it goes; the
	// checkout stays.
	e.Git(repo, "update-ref", "refs/heads/main", "refs/heads/"+it.Branch)
	out = e.MustOwt(repo, "cleanup", "--yes")
	require.Contains(t, out, "removed d1", out)
	require.Contains(t, out, "your checkout stays on "+it.Branch)
	requireCheckoutSurvives(t, e, repo, it, "cleanup")
}

// A settings file the branch tracks: owt's hooks hide behind
// skip-worktree in the checkout's index while the agent runs, and delete
// puts the file and the index back as they were.
func TestInPlaceTrackedSettingsComeBackWithTheIndex(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".claude/settings.local.json", userSettings)
	e.Git(repo, "add", ".claude/settings.local.json")
	e.Git(repo, "commit", "-q", "-m", "team settings")

	it, _ := inPlace(t, e, repo, "quick", "!sleep 60s")
	require.NotEmpty(t, fixture.HookCommands(t, filepath.Join(repo, ".claude", "settings.local.json"))["Stop"])
	require.Empty(t, e.Git(repo, "status", "--porcelain"), "owt's hooks do not show")
	require.Contains(t, e.Git(repo, "ls-files", "-v", ".claude/settings.local.json"), "S ", "skip-worktree while it runs")

	e.MustOwt(repo, "delete", "quick")
	require.Equal(t, userSettings, readFile(filepath.Join(repo, ".claude", "settings.local.json")))
	require.Contains(t, e.Git(repo, "ls-files", "-v", ".claude/settings.local.json"), "H ", "the index is as it was")
	require.Empty(t, e.Git(repo, "status", "--porcelain"))
	require.Equal(t, it.Branch, e.Git(repo, "branch", "--show-current"))
}

// owt branch --dry-run is refused where owt branch is, with the same
// words and exit code, and tells the truth about the memory: an in-place
// agent gets no facts (owt writes nothing into the user's checkout), and
// the real owt branch says so too.
func TestInPlaceDryRunRefusesAsTheRealRunAndInjectsNoFacts(t *testing.T) {
	e, repo := inPlaceRepo(t)
	e.MustOwt(repo, "memory", "add", "--pin", "Always run make lint before committing")
	args := []string{"branch", "--no-setup", "--tool", "claude", "--template", "bugfix", "--name", "quick", "Quick fix"}
	dry := append([]string{"branch", "--dry-run"}, args[1:]...)
	same := func(what string) fixture.Result {
		t.Helper()
		d := e.Owt(repo, dry...)
		r := e.Owt(repo, args...)
		require.NotEqual(t, 0, r.Code, "%s: the real run is refused: %s", what, r.Stdout)
		require.Equal(t, r.Code, d.Code, "%s: same exit code; dry run said %q", what, d.Stdout+d.Stderr)
		require.Equal(t, r.Stderr, d.Stderr, "%s: same words", what)
		require.Empty(t, e.List(repo), what)
		return r
	}

	e.WriteFile(repo, "wip.txt", "untracked work\n")
	require.Contains(t, same("dirty").Stderr, "uncommitted")
	require.NoError(t, os.Remove(filepath.Join(repo, "wip.txt")))

	e.Git(repo, "switch", "-q", "--detach", "HEAD")
	require.Contains(t, same("detached").Stderr, "detached")
	e.Git(repo, "switch", "-q", "main")

	// A clean checkout: the dry run shows no facts, and says why.
	out := e.MustOwt(repo, dry...)
	require.Contains(t, out, "nothing was created")
	require.Contains(t, out, "memory: none: no facts are injected: an in-place agent works in your own checkout")
	require.NotContains(t, out, "written into the agent's instructions file")
	require.NotContains(t, out, "make lint before committing", "no fact is shown as given")
	require.Contains(t, out, "in the user's own checkout, not a worktree of your own", "the protocol says where it works")
	require.Equal(t, "main", e.Git(repo, "branch", "--show-current"), "the dry run switched nothing")

	r := e.Owt(repo, args...)
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, "memory: no facts injected: an in-place agent works in your own checkout")
	require.NoFileExists(t, filepath.Join(repo, "CLAUDE.local.md"), "no facts written into the user's checkout")
	require.Empty(t, e.Git(repo, "status", "--porcelain"))

	// One in-place agent per checkout: refused alike.
	other := []string{"branch", "--no-setup", "--tool", "claude", "--name", "again", "Another"}
	d := e.Owt(repo, append([]string{"branch", "--dry-run"}, other[1:]...)...)
	r = e.Owt(repo, other...)
	require.NotEqual(t, 0, r.Code)
	require.Contains(t, r.Stderr, "one in-place agent per checkout")
	require.Equal(t, r.Code, d.Code, d.Stdout)
	require.Equal(t, r.Stderr, d.Stderr)
	require.Len(t, e.List(repo), 1)
}
