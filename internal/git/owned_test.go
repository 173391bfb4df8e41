package git

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUpdateBranchNeverDropsCommits(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	g(t, dir, "branch", "side")
	commitFile(t, dir, "b.txt", "b\n", "main moves on")
	g(t, dir, "checkout", "-q", "side")
	commitFile(t, dir, "s.txt", "s\n", "side work")
	g(t, dir, "checkout", "-q", "--detach")
	mainAt := g(t, dir, "rev-parse", "main")
	side := g(t, dir, "rev-parse", "side")

	// side does not contain main's newest commit: moving main there would
	// drop it, even though main is exactly where the caller says it is.
	err := r.UpdateBranch("main", side, mainAt, "owt test")
	require.ErrorContains(t, err, "refusing to drop commits")
	require.Equal(t, mainAt, g(t, dir, "rev-parse", "main"))

	// A descendant is fine.
	tree, err := r.TreeOf(side)
	require.NoError(t, err)
	merged, err := r.CommitTree(tree, []string{mainAt, side}, "merge\n")
	require.NoError(t, err)
	require.NoError(t, r.UpdateBranch("main", merged, mainAt, "owt test"))
	require.Equal(t, merged, g(t, dir, "rev-parse", "main"))
}

func TestUnreferencedCommitsCountsDetachedWork(t *testing.T) {
	t.Parallel()
	_, r := newRepo(t)
	wt := filepath.Join(tmp(t), "wt")
	require.NoError(t, r.AddWorktree(wt, "feat/x", "main"))
	commitFile(t, wt, "x.txt", "x\n", "on the branch")
	n, err := UnreferencedCommits(wt)
	require.NoError(t, err)
	require.Zero(t, n, "commits on the branch are held by it")

	g(t, wt, "checkout", "-q", "--detach")
	n, err = UnreferencedCommits(wt)
	require.NoError(t, err)
	require.Zero(t, n, "detached at a commit the branch holds")

	commitFile(t, wt, "y.txt", "y\n", "detached 1")
	commitFile(t, wt, "z.txt", "z\n", "detached 2")
	n, err = UnreferencedCommits(wt)
	require.NoError(t, err)
	require.Equal(t, 2, n)

	g(t, wt, "tag", "keep")
	n, err = UnreferencedCommits(wt)
	require.NoError(t, err)
	require.Zero(t, n, "a tag holds them")
}

func TestOwtBranchMark(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	for _, b := range []string{"feat/login", "fix/a.b", "mine"} {
		g(t, dir, "branch", b)
	}
	set, err := r.OwtBranches()
	require.NoError(t, err)
	require.Empty(t, set)

	require.NoError(t, r.MarkOwtBranch("feat/login"))
	require.NoError(t, r.MarkOwtBranch("fix/a.b"))
	set, err = r.OwtBranches()
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"feat/login": true, "fix/a.b": true}, set)

	// The mark goes with the branch.
	require.NoError(t, r.DeleteBranch("feat/login", true))
	set, err = r.OwtBranches()
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"fix/a.b": true}, set)
	g(t, dir, "branch", "feat/login")
	set, err = r.OwtBranches()
	require.NoError(t, err)
	require.False(t, set["feat/login"], "a new branch of the same name is not owt's")
}

// TestExcludeEditsNeverLoseEachOther runs owt-style edits of info/exclude
// side by side: appends of new patterns while other patterns are added and
// removed again. Every append must survive every removal.
func TestExcludeEditsNeverLoseEachOther(t *testing.T) {
	t.Parallel()
	_, r := newRepo(t)
	path, err := r.ExcludeFile()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte("# the user's\n*.swp\n"), 0o644))

	const adders, churners, rounds = 8, 4, 25
	var wg sync.WaitGroup
	errs := make(chan error, (adders+churners)*rounds*2)
	for a := 0; a < adders; a++ {
		wg.Add(1)
		go func(a int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				if _, err := r.AddExcludes(fmt.Sprintf("/keep-%d-%d", a, i)); err != nil {
					errs <- err
				}
			}
		}(a)
	}
	for c := 0; c < churners; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				p := fmt.Sprintf("/churn-%d", c)
				if _, err := r.AddExcludes(p); err != nil {
					errs <- err
				}
				if err := r.RemoveExcludes(p); err != nil {
					errs <- err
				}
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(data)
	require.True(t, strings.HasPrefix(text, "# the user's\n*.swp\n"), text)
	for a := 0; a < adders; a++ {
		for i := 0; i < rounds; i++ {
			require.Contains(t, text, fmt.Sprintf("/keep-%d-%d\n", a, i), "an append was lost to a concurrent removal")
		}
	}
	require.NotContains(t, text, "/churn-")
}

func TestUndoExcludesLeavesLinesAnotherWorktreeMayNeed(t *testing.T) {
	t.Parallel()
	_, r := newRepo(t)
	path, err := r.ExcludeFile()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte("*.swp\n"), 0o644))
	a := filepath.Join(tmp(t), "a")
	require.NoError(t, r.AddWorktree(a, "feat/a", "main"))
	added, err := r.AddExcludes("/.claude/settings.local.json", "*.swp")
	require.NoError(t, err)
	require.Equal(t, []string{"/.claude/settings.local.json"}, added)

	// Another worktree appeared meanwhile: it may rely on the line.
	b := filepath.Join(tmp(t), "b")
	require.NoError(t, r.AddWorktree(b, "feat/b", "main"))
	require.NoError(t, r.UndoExcludes(a, added...))
	data, _ := os.ReadFile(path)
	require.Equal(t, "*.swp\n# owt\n/.claude/settings.local.json\n", string(data))

	// Alone, the rollback removes exactly the lines it added.
	require.NoError(t, r.RemoveWorktree(b, true))
	require.NoError(t, r.UndoExcludes(a, added...))
	data, _ = os.ReadFile(path)
	require.Equal(t, "*.swp\n", string(data))
}
