package land

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/git"
)

// fakeLand models landing without git: the tip is the "+"-joined list of
// landed commits, and a commit conflicts with any landed one it is paired
// with in conflicts.
func fakeLand(conflicts map[[2]string]bool) (landFunc, pairFunc) {
	clash := func(a, b string) bool { return conflicts[[2]string{a, b}] || conflicts[[2]string{b, a}] }
	land := func(cur, commit string) (string, []string, error) {
		for _, landed := range strings.Split(cur, "+") {
			if clash(landed, commit) {
				return "", []string{"shared.go"}, nil
			}
		}
		return cur + "+" + commit, nil, nil
	}
	pair := func(a, b *candidate) (bool, error) { return clash(a.commit, b.commit), nil }
	return land, pair
}

func cand(name string, size int, files ...string) *candidate {
	return &candidate{entry: QueueEntry{Name: name, Size: size}, commit: name, files: files}
}

func names(ps []placed) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.c.entry.Name)
	}
	return out
}

func TestOrderQueuePutsCleanFewestOverlapsSmallestFirst(t *testing.T) {
	a := cand("a", 10, "shared.go", "a.go")
	b := cand("b", 500, "b.go")
	c := cand("c", 50, "shared.go", "c.go")
	// a and c both change shared.go in ways that conflict.
	land, pair := fakeLand(map[[2]string]bool{{"a", "c"}: true})
	order, err := orderQueue([]*candidate{c, b, a}, "base", land, pair)
	require.NoError(t, err)
	require.Equal(t, []string{"b", "a", "c"}, names(order), "b conflicts and overlaps with nobody; a is smaller than c")
	require.True(t, order[0].clean)
	require.True(t, order[1].clean)
	require.False(t, order[2].clean, "c conflicts once a has landed")
	require.Equal(t, []string{"shared.go"}, order[2].conflicts)
	require.Equal(t, 0, order[0].overlaps)
	require.Equal(t, 1, order[1].overlaps)
}

func TestOrderQueueLetsTheCleanOnesGoFirst(t *testing.T) {
	// x conflicts with the base itself; the rest land whatever the order.
	x := cand("x", 1, "x.go")
	y := cand("y", 30, "y.go")
	z := cand("z", 20, "z.go")
	land := func(cur, commit string) (string, []string, error) {
		if commit == "x" {
			return "", []string{"x.go"}, nil
		}
		return cur + "+" + commit, nil, nil
	}
	order, err := orderQueue([]*candidate{x, y, z}, "base", land, func(a, b *candidate) (bool, error) { return false, nil })
	require.NoError(t, err)
	require.Equal(t, []string{"z", "y", "x"}, names(order))
	require.False(t, order[2].clean)
}

func TestOrderQueueMaximisesCleanMerges(t *testing.T) {
	// p conflicts with both q and r; q and r are compatible. Landing p
	// first would leave two conflicts, landing q and r first only one.
	p := cand("p", 1, "s.go")
	q := cand("q", 5, "s.go")
	r := cand("r", 5, "s.go")
	land, pair := fakeLand(map[[2]string]bool{{"p", "q"}: true, {"p", "r"}: true})
	order, err := orderQueue([]*candidate{p, q, r}, "base", land, pair)
	require.NoError(t, err)
	require.Equal(t, []string{"q", "r", "p"}, names(order[:3]))
	require.True(t, order[1].clean)
	require.False(t, order[2].clean)
}

// Two candidates clash only on a file both change: a's change to c.txt
// conflicts with main's, which b carries (made later from a newer main),
// but b never touched c.txt, and their shared s.txt merges cleanly.
func TestPredictClashIgnoresABaseChangeOneCarries(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	require.NoError(t, os.Mkdir(dir, 0o755))
	gitIn(t, dir, "init", "-q", "-b", "main")
	commitIn(t, dir, "c.txt", "base\n")
	commitIn(t, dir, "s.txt", "1\n2\n3\n4\n5\n6\n7\n")
	gitIn(t, dir, "checkout", "-q", "-b", "a")
	commitIn(t, dir, "c.txt", "a\n")
	aTip := commitIn(t, dir, "s.txt", "1a\n2\n3\n4\n5\n6\n7\n")
	gitIn(t, dir, "checkout", "-q", "main")
	commitIn(t, dir, "c.txt", "main\n")
	gitIn(t, dir, "checkout", "-q", "-b", "b")
	bTip := commitIn(t, dir, "s.txt", "1\n2\n3\n4\n5\n6\n7b\n")
	repo, err := git.FindRepo(dir)
	require.NoError(t, err)
	c := &Context{Git: repo}

	a := &candidate{commit: aTip, files: []string{"c.txt", "s.txt"}}
	b := &candidate{commit: bTip, files: []string{"s.txt"}}
	clash, err := c.predictClash(a, b)
	require.NoError(t, err)
	require.False(t, clash)

	// A real clash on a file both change is still one.
	gitIn(t, dir, "checkout", "-q", "b")
	b.commit = commitIn(t, dir, "s.txt", "1x\n2\n3\n4\n5\n6\n7b\n")
	clash, err = c.predictClash(a, b)
	require.NoError(t, err)
	require.True(t, clash)
}
