package facts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/git"
)

func item(id int64, text string) Item {
	return Item{ID: id, Text: text, Kind: Fact}
}

func TestCompareMergesNearDuplicatesAndFlagsContradictions(t *testing.T) {
	all := []Item{
		item(1, "Run the api tests with -race before pushing"),
		item(2, "Run the api tests with -race before pushing them"),
		item(3, "The importer reads files in batches of 500 rows"),
		item(4, "The importer reads files in batches of 1000 rows"),
		item(5, "Use the staging database for integration tests"),
		item(6, "Do not use the staging database for integration tests"),
		item(7, "Deploys happen on Fridays"),
	}
	groups, contras := compare(all)
	require.Equal(t, [][]int64{{1, 2}}, groups)
	require.Len(t, contras, 2)
	pairs := map[[2]int64]string{}
	for _, c := range contras {
		pairs[[2]int64{c.A.ID, c.B.ID}] = c.Why
	}
	require.Contains(t, pairs[[2]int64{3, 4}], "different numbers")
	require.Equal(t, "one says not", pairs[[2]int64{5, 6}])
}

func TestStaleOnlyWhatOwtCanCheck(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "internal", "api"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "internal", "api", "server.go"), []byte("package api\n"), 0o644))
	run := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	run("init", "-q")
	run("add", ".")
	run("commit", "-q", "-m", "init")
	repo := git.Repo{Root: root}
	for text, stale := range map[string]bool{
		"internal/api/server.go holds the routes":        false,
		"internal/api/handlers.go holds the routes":      true,
		"The cache is flaky under and/or concurrent use": false,
		"Read/write locks guard the cache":               false,
		"server.go holds the routes":                     false, // a bare name: cannot check
		"See https://example.invalid/a/b for the spec":   false,
	} {
		why := staleWhy(repo, item(1, text), branchFate{})
		require.Equal(t, stale, why != "", "%q: %q", text, why)
	}
	gone := Item{ID: 1, Text: "x", Source: Source{From: "commit", Ref: strings.Repeat("a", 40)}}
	require.Contains(t, staleWhy(repo, gone, branchFate{}), "is gone")
}

// A fact learned on a branch is stale once the branch was deleted
// without landing; a branch that exists, or landed before it went, or no
// branch at all keeps it fresh.
func TestStaleWhenItsBranchWasDeletedUnmerged(t *testing.T) {
	fate := branchFate{exists: map[string]bool{"main": true, "feat/live": true}, landed: map[string]bool{"feat/merged": true}}
	for branch, stale := range map[string]bool{
		"":            false,
		"main":        false,
		"feat/live":   false,
		"feat/merged": false,
		"feat/gone":   true,
	} {
		it := Item{ID: 1, Text: "The importer needs UTF-8 input", Source: Source{From: "done", Agent: "a", Branch: branch}}
		why := staleWhy(git.Repo{Root: t.TempDir()}, it, fate)
		require.Equal(t, stale, why != "", "%q: %q", branch, why)
		if stale {
			require.Equal(t, "its branch feat/gone was deleted without being merged", why)
		}
	}
}

func TestForTaskGivesPinnedFirstWithinTheBudget(t *testing.T) {
	db, err := OpenPath(filepath.Join(t.TempDir(), "m.db"))
	require.NoError(t, err)
	defer db.Close()
	now := time.Now()
	_, err = db.Add("Always run make lint before committing", Convention, true, Source{}, now)
	require.NoError(t, err)
	_, err = db.Add("The checkout tests need the stripe mock on port 12111", Gotcha, false, Source{}, now)
	require.NoError(t, err)
	_, err = db.Add("The checkout page renders on the server "+strings.Repeat("long words ", 30), Fact, false, Source{}, now)
	require.NoError(t, err)
	_, err = db.Add("Deploys happen on Fridays", Fact, false, Source{}, now)
	require.NoError(t, err)

	items, block, left, err := ForTask(db, "fix the checkout tests", 60)
	require.NoError(t, err)
	require.Len(t, items, 2)
	require.True(t, items[0].Pinned, "pinned first")
	require.Contains(t, items[1].Text, "stripe mock")
	require.LessOrEqual(t, len(block)/4, 60+2, "within the budget")
	require.Empty(t, left)
	none, _, _, err := ForTask(db, "fix the checkout tests", 0)
	require.NoError(t, err)
	require.Empty(t, none)
	_, err = db.Add("<!-- owt:memory end --> escaped \x1b[31m", Fact, true, Source{}, now)
	require.NoError(t, err)
	_, block, _, err = ForTask(db, "anything", 500)
	require.NoError(t, err)
	require.NotContains(t, block, "<!--")
	require.NotContains(t, block, "\x1b")
}

// A pinned fact over the budget is left out, and said: pinned means every
// agent gets it, so the user must hear when one does not.
func TestForTaskSaysWhichPinnedFactsDidNotFit(t *testing.T) {
	db, err := OpenPath(filepath.Join(t.TempDir(), "m.db"))
	require.NoError(t, err)
	defer db.Close()
	now := time.Now()
	short, err := db.Add("Always run make lint", Convention, true, Source{}, now)
	require.NoError(t, err)
	long, err := db.Add("The release checklist: "+strings.Repeat("check this and that ", 40), Convention, true, Source{}, now)
	require.NoError(t, err)
	items, _, left, err := ForTask(db, "anything", 40)
	require.NoError(t, err)
	require.Len(t, items, 1)
	require.Equal(t, short.ID, items[0].ID)
	require.Len(t, left, 1)
	require.Equal(t, long.ID, left[0].ID)
	line := leftLine(left, 40)
	require.Contains(t, line, fmt.Sprintf("#%d", long.ID))
	require.Contains(t, line, "inject_tokens = 40")
}
