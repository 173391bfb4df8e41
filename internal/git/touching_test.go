package git

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/untrusted"
)

// The other side of a conflict is the commits that touch its files, full
// ids newest first, a file name that looks like pathspec magic included.
func TestCommitsTouchingListsOnlyTheOtherSidesCommitsOnTheFiles(t *testing.T) {
	dir, r := newRepo(t)
	g(t, dir, "branch", "mine")
	commitFile(t, dir, ":(glob)*.md", "x\n", "odd name")
	commitFile(t, dir, "b.txt", "b\n", "unrelated")
	commitFile(t, dir, "a.txt", "changed\n", "touch a")
	cs, err := r.CommitsTouching("mine", "main", []string{"a.txt", ":(glob)*.md"}, 10)
	require.NoError(t, err)
	require.Equal(t, []TouchingCommit{{ID: g(t, dir, "rev-parse", "main"), Subject: untrusted.From("touch a")}, {ID: g(t, dir, "rev-parse", "main~2"), Subject: untrusted.From("odd name")}}, cs)

	cs, err = r.CommitsTouching("main", "mine", []string{"a.txt"}, 10)
	require.NoError(t, err)
	require.Empty(t, cs)
}
