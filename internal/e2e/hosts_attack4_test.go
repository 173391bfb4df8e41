package e2e

import (
	"os"
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

// A host's owt new cut off between starting the agent's session and
// recording it leaves an agent that has begun: owt doctor --fix here
// finishes it there, as the host's own doctor does, and never deletes it
// while saying it removed what a cut-off create left.
func TestDoctorFixFinishesAHostCreateWhoseSessionStarted(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "began", "a task")
	items, _ := e.hostList(repo)
	require.Len(t, items, 1)
	path := items[0].Path
	// Its record as owt new leaves it when cut off right after the session started.
	out, err := h.Run(`python3 -c '
import json, glob
for p in glob.glob("` + h.Home + `/.local/state/owt/repos/*.json"):
    d = json.load(open(p))
    rs = d.get("worktrees") or {}
    if "began" in rs:
        rs["began"]["creating"] = True
        json.dump(d, open(p, "w"))
        print("set")
'`)
	require.NoError(t, err, out)
	require.Equal(t, "set", out)

	r := e.Owt(repo, "doctor", "--fix")
	t.Logf("doctor: %s %s", r.Stdout, r.Stderr)
	_, err = os.Stat(path)
	require.NoError(t, err, "doctor --fix deleted an agent whose session had started: %s", r.Stdout)
	items, _ = e.hostList(repo)
	require.Len(t, items, 1, "the agent is still there")
	require.NotContains(t, r.Stdout, "removed what it left there")
}
