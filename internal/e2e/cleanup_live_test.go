package e2e

import (
	"testing"
	"time"

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

// A merged shell worktree whose shell runs a program (an editor, a dev
// server) is kept by cleanup; once the shell is back at its prompt, it goes.
func TestCleanupKeepsAShellThatRunsAProgram(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	sh := e.shell(repo, "sh")
	e.commitIn(sh.Path, "s.txt", "s\n", "shell work")
	e.Git(repo, "merge", "-q", "--no-edit", sh.Branch)
	target := "=" + sh.Session + ":"
	e.Tmux("send-keys", "-t", target, "-l", "sleep 600")
	e.Tmux("send-keys", "-t", target, "Enter")
	e.Eventually(5*time.Second, "sleep runs in the shell", func() bool {
		return e.Tmux("display-message", "-p", "-t", target, "#{pane_current_command}") == "sleep"
	})
	out := e.MustOwt(repo, "cleanup", "--yes")
	require.Contains(t, out, "a program runs in its shell")
	require.Contains(t, e.Sessions(), sh.Session)

	e.Tmux("send-keys", "-t", target, "C-c")
	e.Eventually(5*time.Second, "the shell is at its prompt", func() bool {
		return e.Tmux("display-message", "-p", "-t", target, "#{pane_current_command}") != "sleep"
	})
	require.Contains(t, e.MustOwt(repo, "cleanup", "--yes"), "removed sh")
}
