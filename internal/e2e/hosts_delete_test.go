package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An agent on a host that made no commit, started from a local base the
// host's clone lacks (its main checked out there, left behind), holds
// only commits that are here already: owt delete NAME@HOST deletes it
// without --force. So does the cleanup of an agent whose work merged here
// while its teardown there did not happen (merge --keep stands in for a
// teardown cut off). Work that is only there is still refused.
func TestDeleteOnAHostCountsOnlyCommitsNotHere(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	for i, f := range []string{"a.txt", "b.txt"} {
		e.WriteFile(repo, f, "local\n")
		e.Git(repo, "add", ".")
		e.Git(repo, "commit", "-q", "-m", "local only "+string(rune('1'+i)))
	}
	// No commit of its own (and no other branch there holding the base's).
	e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "idle1", "nothing to do")
	items, _ := e.hostList(repo)
	require.Len(t, items, 1)
	idle := items[0].Path
	r := e.Owt(repo, "delete", "idle1@box", "--dry-run")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "nothing would be lost")
	r = e.Owt(repo, "delete", "idle1@box")
	require.Equal(t, 0, r.Code, "refused an agent with no commit of its own: %s", r.Stderr)
	require.Contains(t, r.Stdout, "deleted idle1@box")
	_, err := os.Stat(idle)
	require.True(t, os.IsNotExist(err), "its worktree on the host is removed")

	e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "work1", "some work")
	items, _ = e.hostList(repo)
	require.Len(t, items, 1)
	paths := map[string]string{"work1": items[0].Path}

	// A commit only there: refused, and the count is its own, not the base's.
	out, err := h.Run("cd '" + paths["work1"] + "' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature'")
	require.NoError(t, err, out)
	r = e.Owt(repo, "delete", "work1@box")
	requireOneLineError(t, r, "--force")
	require.Contains(t, r.Stderr, "1 commit(s)")
	items, _ = e.hostList(repo)
	require.Len(t, items, 1, "refused: nothing deleted")

	// Its work merged here, the agent kept there: deleting it loses nothing.
	e.MustOwt(repo, "merge", "work1@box", "--yes", "--keep", "--force")
	require.Equal(t, "done", strings.TrimSpace(e.Git(repo, "show", "main:feature.txt")))
	r = e.Owt(repo, "delete", "work1@box", "--dry-run")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "nothing would be lost")
	r = e.Owt(repo, "delete", "work1@box")
	require.Equal(t, 0, r.Code, "refused an agent whose work is merged here: %s", r.Stderr)
	e.Eventually(15*time.Second, "no agent left on the host", func() bool {
		items, _ := e.hostList(repo)
		return len(items) == 0
	})
}

// owt's own branch that a landing fetched the host's work into
// (owt/remote/HOST/BRANCH) is not the user's: a landing killed before it
// deleted it leaves it, and the next landing of that name overwrites it.
// It does not make commits that are only on the host "here already":
// owt delete NAME@HOST still refuses them.
func TestDeleteOnAHostDoesNotCountOwtsLandingBranchAsHolding(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "work1", "some work")
	items, _ := e.hostList(repo)
	require.Len(t, items, 1)
	path, branch := items[0].Path, items[0].Branch
	out, err := h.Run("cd '" + path + "' && echo done > feature.txt && git add feature.txt && git commit -qm 'the feature'")
	require.NoError(t, err, out)

	// A landing cut off after its fetch: owt's own branch holds the tip here.
	e.Git(repo, "fetch", "-q", "--upload-pack=git -c safe.directory=* upload-pack", path, "+refs/heads/"+branch+":refs/heads/owt/remote/box/"+branch)

	r := e.Owt(repo, "delete", "work1@box", "--dry-run")
	require.Equal(t, 0, r.Code, r.Stderr)
	require.Contains(t, r.Stdout, "1 commit(s)", "the commit is only on the host and in owt's scratch branch")
	r = e.Owt(repo, "delete", "work1@box")
	requireOneLineError(t, r, "--force")
	items, _ = e.hostList(repo)
	require.Len(t, items, 1, "refused: nothing deleted")
}
