package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A worktree whose branch has no commits of its own is empty, not merged,
// even after owt sync brought its base's new commits in; and cleanup never
// removes a worktree whose agent is alive unless told --include-live.
func TestSyncedUntouchedAgentIsEmptyAndCleanupKeepsLiveAgents(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	fresh := e.agentIdle(repo, "fresh")
	done := e.agentIdle(repo, "done")
	e.commitIn(done.Path, "d.txt", "d\n", "done work")
	e.Git(repo, "merge", "-q", "--no-ff", "-m", "merge done by hand", done.Branch)
	e.commitIn(repo, "news.txt", "news\n", "main news")

	require.Contains(t, e.MustOwt(repo, "sync", "fresh"), "fresh: brought 3 commit(s) of main in (fast-forward)")
	require.Equal(t, e.Git(repo, "rev-parse", "main"), e.Git(fresh.Path, "rev-parse", "HEAD"))
	require.True(t, e.check(repo, "fresh").Empty)

	out := e.MustOwt(repo, "cleanup", "--dry-run")
	require.Contains(t, out, "fresh kept: empty, no commits of its own")
	require.Contains(t, out, "done kept: merged into main, but its agent is idle in a live session (--include-live removes it)")
	require.Contains(t, out, "nothing to remove")
	e.MustOwt(repo, "cleanup", "--yes")
	e.requireKept(repo, fresh)
	e.requireKept(repo, done)
	out = e.MustOwt(repo, "cleanup", "--stale", "0", "--dry-run")
	require.Contains(t, out, "fresh kept: untouched for")
	require.Contains(t, out, "its agent is idle in a live session (--include-live removes it)")

	out = e.MustOwt(repo, "cleanup", "--include-live", "--yes")
	require.Contains(t, out, "removed done (merged into main)")
	e.requireGone(repo, done)
	e.requireKept(repo, fresh)

	// An agent that has exited is not alive: its merged worktree goes.
	gone := e.agentDoing(repo, "gone", "Say hello")
	e.commitIn(gone.Path, "g.txt", "g\n", "gone work")
	e.Git(repo, "merge", "-q", "--no-ff", "-m", "merge gone by hand", gone.Branch)
	require.Contains(t, e.MustOwt(repo, "cleanup", "--yes"), "removed gone (merged into main)")
	e.requireGone(repo, gone)
	e.requireKept(repo, fresh)
}
