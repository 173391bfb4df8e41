package git

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHoldsPatches(t *testing.T) {
	t.Parallel()
	dir, r := newRepo(t)
	g(t, dir, "checkout", "-q", "-b", "feat")
	commitFile(t, dir, "b.txt", "b\n", "add b")
	g(t, dir, "checkout", "-q", "-b", "integ", "main")
	commitFile(t, dir, "m.txt", "m\n", "main moves")
	g(t, dir, "cherry-pick", "feat")
	commitFile(t, dir, "b.txt", "b2\n", "edit b")

	ok, err := r.HoldsPatches("integ", "feat")
	require.NoError(t, err)
	require.True(t, ok, "feat's commit was picked into integ")

	g(t, dir, "reset", "-q", "--hard", "main")
	ok, err = r.HoldsPatches("integ", "feat")
	require.NoError(t, err)
	require.False(t, ok, "feat's commit is not in integ")

	ok, err = r.HoldsPatches("integ", "integ")
	require.NoError(t, err)
	require.False(t, ok, "no commit to match is not held by patch-id")
}
