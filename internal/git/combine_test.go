package git

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCombineCommitsMergesThreeBranchesWithoutACheckout(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	for _, b := range []string{"a", "b", "c"} {
		g(t, dir, "checkout", "-q", "-b", b, "main")
		commitFile(t, dir, b+".txt", b+"\n", "add "+b)
	}
	g(t, dir, "checkout", "-q", "main")
	refs := g(t, dir, "for-each-ref", "--format=%(refname)")
	tips, err := r.ResolveCommits([]string{"a", "b", "c"})
	require.NoError(t, err)
	require.Len(t, tips, 3)

	c, err := r.CombineCommits(tips, "start from a, b, c")
	require.NoError(t, err)
	require.Equal(t, "a.txt\nb.txt\nc.txt", g(t, dir, "ls-tree", "--name-only", c, "--", "a.txt", "b.txt", "c.txt"))
	require.Equal(t, tips[0]+" "+tips[1]+" "+tips[2], g(t, dir, "show", "-s", "--format=%P", c), "the parents, in order")
	require.Equal(t, "start from a, b, c", g(t, dir, "show", "-s", "--format=%s", c))
	require.Equal(t, refs, g(t, dir, "for-each-ref", "--format=%(refname)"), "no ref made")
	require.Empty(t, g(t, dir, "status", "--porcelain"))

	stat, err := r.DiffStatBetween("main", c, 60, 2)
	require.NoError(t, err)
	require.Contains(t, stat, "a.txt")
	require.Contains(t, stat, "3 files changed")
	require.NotContains(t, stat, "c.txt", "at most 2 files named")
}

func TestCombineCommitsStopsOnAConflictNamingFileAndCommit(t *testing.T) {
	t.Parallel()
	dir, r := forked(t)
	g(t, dir, "checkout", "-q", "-b", "other", "main~2")
	commitFile(t, dir, "o.txt", "o\n", "other adds")
	g(t, dir, "checkout", "-q", "main")
	before := g(t, dir, "rev-parse", "main", "feat", "other")

	_, err := r.CombineCommits([]string{"other", "main", "feat"}, "x")
	var cc *CombineConflict
	require.ErrorAs(t, err, &cc)
	require.True(t, errors.Is(err, ErrConflict))
	require.Equal(t, 2, cc.Index, "feat conflicts with what came before it")
	require.Equal(t, []string{"a.txt"}, cc.Files)
	require.Equal(t, before, g(t, dir, "rev-parse", "main", "feat", "other"))
	require.Empty(t, g(t, dir, "status", "--porcelain"))
}

func TestIndependentDropsCommitsAnotherHolds(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	g(t, dir, "checkout", "-q", "-b", "a")
	commitFile(t, dir, "a.txt", "a\n", "a")
	g(t, dir, "checkout", "-q", "-b", "b")
	commitFile(t, dir, "b.txt", "b\n", "b")
	tips, err := r.ResolveCommits([]string{"a", "b", "main"})
	require.NoError(t, err)
	ind, err := r.Independent(tips)
	require.NoError(t, err)
	require.Equal(t, []string{tips[1]}, ind, "b holds a and main")

	_, err = r.ResolveCommits([]string{"a", "no-such"})
	require.Error(t, err)
}
