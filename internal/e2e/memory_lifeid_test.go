package e2e

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A damaged search index costs no fact: owt memory search rebuilds it and
// finds them, pinned ones too, and nothing is set aside. A pinned fact
// over the injection budget is left out with a warning owt new shows.
func TestMemoryDamagedIndexAndPinnedFactsOverTheBudget(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.MustOwt(repo, "memory", "add", "--pin", "The stripe mock listens on port 12111")
	e.MustOwt(repo, "memory", "add", "Deploys happen on Fridays")
	dbs, err := filepath.Glob(filepath.Join(e.Var("XDG_DATA_HOME"), "owt", "memory", "*.db"))
	require.NoError(t, err)
	require.Len(t, dbs, 1)
	db, err := sql.Open("sqlite", "file:"+dbs[0])
	require.NoError(t, err)
	_, err = db.Exec(`DELETE FROM facts_fts_data WHERE id > 10`)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	hits := e.facts(repo, "search", "stripe port")
	require.Len(t, hits, 1)
	require.True(t, hits[0].Pinned)
	require.Len(t, e.facts(repo, "list"), 2, "every fact still there")
	aside, _ := filepath.Glob(dbs[0] + ".corrupt-*")
	require.Empty(t, aside, "nothing set aside")

	var long factJSON
	out := e.MustOwt(repo, "memory", "add", "--pin", "The release checklist: "+strings.Repeat("check this and that ", 40), "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &long), out)
	e.WriteFile(repo, ".owt.toml", "[memory]\ninject_tokens = 40\n")
	r := e.Owt(repo, "new", "--tool", "claude", "--no-setup", "--name", "co", "Fix the checkout tests")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, fmt.Sprintf("1 pinned fact(s) left out (#%d)", long.ID))
	require.Contains(t, r.Stderr, "inject_tokens = 40")
}
