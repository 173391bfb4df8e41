package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
)

// halfMakeOnHost starts owt new --host box --name name and drops the
// connection (sshd and all it runs killed, as a machine that drops off
// the network) while git checks the worktree out there: a smudge filter
// in the host's clone stalls on slow.txt until then. The host is back
// when it returns; the owt new here failed.
func halfMakeOnHost(e *Env, h *fixture.SSHHost, repo, name string) {
	t := e.t
	t.Helper()
	_, _ = h.Run("rm -f ~/smudging")
	cmd := exec.Command(e.Bins.Owt, "new", "--host", "box", "--no-setup", "--no-agent", "--name", name, "half made")
	cmd.Dir, cmd.Env = repo, e.Environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	e.Eventually(60*time.Second, "git checking the worktree out on the host", func() bool {
		out, _ := h.Run("test -e ~/smudging && echo yes")
		return out == "yes"
	})
	h.Stop()
	select {
	case err := <-done:
		require.Error(t, err, "owt new said it made %s while the connection dropped", name)
	case <-time.After(60 * time.Second):
		t.Fatal("owt new went on after the connection dropped")
	}
	h.Start()
}

// An ssh drop during owt new --host leaves nothing that owt cannot see or
// undo: owt doctor here names the half-made agent on the host, owt delete
// NAME@HOST removes what it left (git's own files, not anyone's work), and
// a retry of the same name makes it.
func TestNewOnHostCutOffIsSeenAndUndone(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	clone := addHostWithRepo(e, h, repo)
	for i := 0; i < 12; i++ {
		e.WriteFile(repo, fmt.Sprintf("f%02d.txt", i), "file\n")
	}
	e.WriteFile(repo, "slow.txt", "slow\n")
	e.Git(repo, "add", ".")
	e.Git(repo, "commit", "-q", "-m", "files")
	// The smudge stalls the first checkout of slow.txt (not later ones).
	gitAs(t, h, clone, "config", "filter.slow.smudge", `sh -c 'if test -e "$HOME/smudging"; then cat; else touch "$HOME/smudging"; sleep 120; cat; fi'`)
	out, err := h.Run("echo 'slow.txt filter=slow' > '" + clone + "/.git/info/attributes'")
	require.NoError(t, err, out)

	halfMakeOnHost(e, h, repo, "half")
	r := e.Owt(repo, "doctor")
	require.NotEqual(t, 0, r.Code, "doctor found nothing: %s", r.Stdout)
	require.Contains(t, r.Stdout, "half@box")
	r = e.Owt(repo, "delete", "half@box")
	require.Equal(t, 0, r.Code, "delete of the half-made agent: %s", r.Stderr)
	items, _ := e.hostList(repo)
	require.Empty(t, items)
	_, err = os.Stat(filepath.Join(h.Home, "src", "app.worktrees", "half"))
	require.True(t, os.IsNotExist(err), "its worktree on the host is removed")
	e.MustOwt(repo, "tmux", "init") // the keys, as a user's tmux.conf binds them
	require.Contains(t, e.MustOwt(repo, "doctor"), "all good")

	halfMakeOnHost(e, h, repo, "again")
	r = e.Owt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "again", "the retry")
	require.Equal(t, 0, r.Code, "the retry: %s", r.Stderr)
	items, _ = e.hostList(repo)
	require.Len(t, items, 1)
	require.Equal(t, "again", items[0].Name)
	require.Equal(t, "clean", strings.TrimSpace(gitAs(t, h, items[0].Path, "status", "--porcelain")+"clean"))
}

// max_agents holds when several owt new --host run at once: the host's
// owt counts under the lock every owt new there takes.
func TestMaxAgentsHoldsForNewOnHostAtOnce(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo, "--max-agents", "2")
	const n = 5
	codes := make(chan int, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			cmd := exec.Command(e.Bins.Owt, "new", "--host", "box", "--no-setup", "--no-agent", "--name", fmt.Sprintf("at%d", i), "at once")
			cmd.Dir, cmd.Env = repo, e.Environ()
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				code = -1
			}
			codes <- code
		}(i)
	}
	made := 0
	for i := 0; i < n; i++ {
		if <-codes == 0 {
			made++
		}
	}
	items, _ := e.hostList(repo)
	require.Len(t, items, made, "each owt new that said it made an agent did")
	require.LessOrEqual(t, made, 2, "max_agents is 2")
	require.GreaterOrEqual(t, made, 1)
	r := e.Owt(repo, "new", "--host", "box", "--no-setup", "--no-agent", "--name", "more", "one more")
	if made == 2 {
		requireOneLineError(t, r, "max_agents")
	}
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
for p in glob.glob("` + h.Home + `/.local/state/owt/repos/*/began.json"):
    d = json.load(open(p))
    d["creating"] = True
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
