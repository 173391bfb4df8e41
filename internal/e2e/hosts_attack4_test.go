package e2e

import (
	"testing"

	"github.com/stretchr/testify/require"
)

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
