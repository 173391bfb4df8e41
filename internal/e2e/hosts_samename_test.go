package e2e

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/owt-tmux/owt/internal/run"
)

// A local agent far and far@box have the same branch name: owt merge
// far@box brings box's work home into owt's own branch, never into the
// local agent's (checked out here) nor a user's branch of that name, and
// lands it; the local agent, its branch and worktree, and the user's
// branch stay as they were. owt host fetch, which does bring the branch
// home as a branch, refuses clearly where one of that name is in the way.
func TestMergeOfAHostAgentLeavesSameNamedBranchesHereAlone(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	// The user's own branch feat/near, at main (behind what near@box will make).
	e.Git(repo, "branch", "feat/near", "main")
	userNear := e.Git(repo, "rev-parse", "feat/near")

	e.MustOwt(repo, "new", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "near", "the task")
	items, _ := e.hostList(repo)
	var local, far, near hostItem
	for _, it := range items {
		switch {
		case it.Name == "far" && it.Host == "box":
			far = it
		case it.Name == "near" && it.Host == "box":
			near = it
		case it.Name == "far":
			local = it
		}
	}
	require.NotEmpty(t, local.Path, "%+v", items)
	require.NotEmpty(t, far.Path, "%+v", items)
	require.NotEmpty(t, near.Path, "%+v", items)
	require.Equal(t, local.Branch, far.Branch, "the same branch name here and there")
	require.Equal(t, "feat/near", near.Branch)

	e.WriteFile(local.Path, "local.txt", "local\n")
	e.Git(local.Path, "add", "local.txt")
	e.Git(local.Path, "commit", "-q", "-m", "local work")
	localTip := e.Git(repo, "rev-parse", local.Branch)
	for _, it := range []hostItem{far, near} {
		out, err := h.Run("cd '" + it.Path + "' && echo " + it.Name + " > " + it.Name + ".txt && git add " + it.Name + ".txt && git commit -qm 'work of " + it.Name + "'")
		require.NoError(t, err, out)
	}
	require.Equal(t, "far: idle\n", e.MustOwt(repo, "wait", "far@box", "--until", "idle", "--timeout", "30s"))
	require.Equal(t, "near: idle\n", e.MustOwt(repo, "wait", "near@box", "--until", "idle", "--timeout", "30s"))

	// owt host fetch brings a branch home as that branch: not over the
	// local agent's, checked out in its worktree.
	r := e.Owt(repo, "host", "fetch", "far@box")
	requireOneLineError(t, r, "checked out at")
	require.Equal(t, localTip, e.Git(repo, "rev-parse", local.Branch))

	e.MustOwt(repo, "merge", "far@box", "--yes")
	require.Equal(t, "far", strings.TrimSpace(e.Git(repo, "show", "main:far.txt")), "far@box's work landed")
	r = e.Owt(repo, "merge", "near@box", "--yes")
	require.Equal(t, 0, r.Code, "%s", r.Stderr)
	require.Equal(t, "near", strings.TrimSpace(e.Git(repo, "show", "main:near.txt")), "near@box's work landed")
	require.Equal(t, "Merge branch 'feat/near' into main", e.Git(repo, "log", "-1", "--format=%s", "main"), "the branch named as it is on the host")

	require.Equal(t, localTip, e.Git(repo, "rev-parse", local.Branch), "the local agent's branch is untouched")
	_, err := os.Stat(local.Path + "/local.txt")
	require.NoError(t, err, "the local agent's worktree is untouched")
	require.Equal(t, local.Branch, e.Git(local.Path, "branch", "--show-current"))
	require.Equal(t, userNear, e.Git(repo, "rev-parse", "feat/near"), "the user's branch of that name is neither moved nor deleted")
	require.Empty(t, e.Git(repo, "branch", "--list", "owt/*"), "owt's own fetched branches are gone")
	e.Eventually(15*time.Second, "far and near gone on the host", func() bool {
		items, _ := e.hostList(repo)
		for _, it := range items {
			if it.Host == "box" {
				return false
			}
		}
		return len(items) == 1
	})
}

// A local owt wait NAME@HOST killed while it waits leaves nothing running
// on the host: its ssh's stdin ends, and the host's owt host exec ends
// the owt wait it ran (in its own process group) with it.
func TestKilledWaitOnAHostLeavesNothingRunningThere(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "far", "the task")
	require.Equal(t, "far: idle\n", e.MustOwt(repo, "wait", "far@box", "--until", "idle", "--timeout", "30s"))

	// The host user's owt processes of far's wait: owt host exec and owt wait.
	waiting := func() string {
		out, _ := h.Run("ps -u " + h.User + " -o args= | grep -E '^owt host exec|owt wait .*-- far$' || true")
		return out
	}
	require.Empty(t, waiting())
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		cmd := exec.Command(e.Bins.Owt, "wait", "far@box", "--until", "exited", "--timeout", "5m")
		cmd.Dir, cmd.Env = repo, e.Environ()
		require.NoError(t, cmd.Start())
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
		e.Eventually(15*time.Second, "owt wait running on the host", func() bool {
			w := waiting()
			return strings.Contains(w, "owt host exec") && strings.Contains(w, "owt wait --until=exited")
		})
		require.NoError(t, cmd.Process.Signal(sig))
		<-done
		e.Eventually(10*time.Second, "nothing of the wait left on the host after "+sig.String(), func() bool {
			return waiting() == ""
		})
	}
}

// A run task on a host whose agent's name (RUN-ID) is taken there: by an
// agent that is this task's own (a start whose answer was lost made it),
// it is adopted; by another agent, the task starts as RUN-ID-a1. Either
// way the task runs and lands, instead of failing every start.
func TestRunOnAHostAdoptsItsOwnAgentOrTakesTheAttemptsName(t *testing.T) {
	e := NewEnv(t)
	h := e.NewSSHHost()
	repo := e.NewRepo("app")
	addHostWithRepo(e, h, repo)
	// near's own agent waits for a word before it says it is done.
	script := h.WriteFile("near.sh", `while [ ! -f "$HOME/go" ]; do sleep 0.2; done
exec "$HOME/.local/bin/owt" done --summary adopted
`, 0o755)
	nearTask := "!write near.txt\\n!commit add near.txt\\n!exec sh " + script
	e.WriteFile(repo, "g.toml", `[run]
into = "integ"
tool = "claude"
settle = "2s"

[run.retry]
max_attempts = 1

[[task]]
id = "far"
task = "`+remoteTaskScript(h, "far.txt")+`"
host = "box"

[[task]]
id = "near"
task = "`+nearTask+`"
host = "box"
`)
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "g-far", "someone else's task")
	// As a start whose answer was lost would have made it (just before:
	// within the slack allowed to a host's clock).
	e.MustOwt(repo, "new", "--host", "box", "--tool", "claude", "--no-setup", "--name", "g-near",
		strings.ReplaceAll(nearTask, `\n`, "\n")+"\n\n"+run.DoneInstruction)
	e.MustOwt(repo, "run", "start", "g.toml")
	e.logRunOnFailure(repo, "g")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(60*time.Second, "near started", func() bool { return e.hasRunEvent(repo, "g", "started", "near", "g-near") })
	res, err := h.Run("touch go")
	require.NoError(t, err, res)
	e.Eventually(180*time.Second, "run g finished", func() bool { return e.hostRunStatus(repo, "g").State == "finished" })
	names := map[string]string{}
	for _, tk := range e.hostRunStatus(repo, "g").Tasks {
		require.Equal(t, "landed", tk.State, "%s: %s", tk.ID, tk.Why)
		names[tk.ID] = tk.Name
	}
	require.Equal(t, map[string]string{"far": "g-far-a1", "near": "g-near"}, names, "far under the attempt's name, near's own agent adopted")
	require.Len(t, h.Prompts("g-near"), 1, "near's agent was not started again")
	for _, f := range []string{"far.txt", "near.txt"} {
		e.Git(repo, "cat-file", "-e", "integ:"+f)
	}
	e.Eventually(60*time.Second, "the run's agents deleted there", func() bool {
		return e.hasRunEvent(repo, "g", "teardown", "far", "deleted on host box") &&
			e.hasRunEvent(repo, "g", "teardown", "near", "deleted on host box")
	})
	require.Equal(t, []string{"g-far"}, remoteAgents(e, h), "someone else's agent is left alone")
}
