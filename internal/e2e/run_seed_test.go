package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The seed tool's tasks.toml runs as it is: auto_ship lands done work in
// the base branch, in dependency order, through owt's merge path: the
// user's checkout, clean and on main, is fast-forwarded as owt merge does.
func TestTheSeedsTasksTomlRunsToTheBase(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	plans := t.TempDir()
	file := filepath.Join(plans, "tasks.toml")
	require.NoError(t, os.WriteFile(file, []byte(`[batch]
max_concurrent = 2
auto_ship = true

[[tasks]]
id = "schema"
description = "`+taskScript("schema.sql")+`"

[[tasks]]
id = "api"
description = "`+taskScript("api.go")+`"
depends_on = ["schema"]
`), 0o600))
	e.MustOwt(repo, "batch", file)
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "run tasks finished", func() bool {
		return e.runStatus(repo, "tasks").State == "finished"
	})
	var order []string
	for _, ev := range e.runEvents(repo, "tasks") {
		switch ev.Event {
		case "needs_you", "failed":
			t.Fatalf("%s %s: %s", ev.Task, ev.Event, ev.Detail)
		case "landed", "starting":
			order = append(order, ev.Event+" "+ev.Task)
		}
	}
	require.Equal(t, []string{"starting schema", "landed schema", "starting api", "landed api"}, order)
	files := e.Git(repo, "ls-tree", "--name-only", "main")
	require.Contains(t, files, "schema.sql")
	require.Contains(t, files, "api.go")
	// api started from main after schema landed there.
	v := e.runStatus(repo, "tasks")
	require.Contains(t, e.Git(repo, "ls-tree", "--name-only", *v.Tasks[1].Branch), "schema.sql")
	// The user's checkout, clean and on main, moved with it.
	require.Equal(t, e.Git(repo, "rev-parse", "main"), e.Git(repo, "rev-parse", "HEAD"))
	require.Equal(t, "main", strings.TrimSpace(e.Git(repo, "branch", "--show-current")))
	require.FileExists(t, filepath.Join(repo, "api.go"))
	require.Empty(t, strings.TrimSpace(e.Git(repo, "status", "--porcelain")))
}
