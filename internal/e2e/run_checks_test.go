package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRunChecksOutputIsNotTheAgentsUncommittedWork(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.startCommittedRun(repo, "b", `[run]
into = "feat/x"
tool = "claude"
settle = "1s"
checks = [["sh", "-c", "date > build.out"]]

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"
`)
	e.Eventually(90*time.Second, "a landed or needs the user", func() bool {
		s := e.runTaskStates(repo, "b")["a"]
		return s == "landed" || s == "needs_you"
	})
	s := e.runTaskStates(repo, "b")
	require.Equal(t, "landed", s["a"], s["a.why"])
	require.Empty(t, e.promptsWith("b-a", "uncommitted"), "the checks' output is not blamed on the agent")
	require.FileExists(t, e.Find(repo, "b-a").Path+"/build.out", "the checks' output is left where they wrote it")
	require.NotContains(t, e.Git(repo, "ls-tree", "--name-only", "feat/x"), "build.out")
}

// An agent that writes while the checks run: its file is its work, not
// the checks' output, and the task is not done without it.
func TestRunAgentWorkWrittenWhileChecksRunIsNotCheckOutput(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.startCommittedRun(repo, "r3", `[run]
into = "integ3"
tool = "claude"
settle = "2s"
checks = [["sleep", "15"]]

[[task]]
id = "t"
task = "!write f.txt A\n!commit add f"
`)
	e.Eventually(90*time.Second, "t's checks run", func() bool { return e.hasRunEvent(repo, "r3", "checking", "t", "") })
	e.MustOwt(repo, "send", "r3-t", "!write g.txt agent work not committed")
	e.Eventually(60*time.Second, "the agent wrote g.txt", func() bool {
		return strings.Contains(e.Git(e.Find(repo, "r3-t").Path, "status", "--porcelain"), "g.txt")
	})
	e.Eventually(90*time.Second, "the checks ended", func() bool { return e.hasRunEvent(repo, "r3", "checks", "t", "") })
	e.Eventually(60*time.Second, "t is told of its uncommitted work (or landed)", func() bool {
		st := e.runTaskStates(repo, "r3")["t"]
		return len(e.promptsWith("r3-t", "uncommitted")) > 0 || st == "needs_you" || st == "landed"
	})
	s := e.runTaskStates(repo, "r3")
	require.NotEqual(t, "landed", s["t"], s["t.why"])
	require.NotEqual(t, "done", s["t"], s["t.why"])
	e.requireNoEvent(repo, "r3", "landed")
	require.NotEmpty(t, e.promptsWith("r3-t", "uncommitted"), "the agent is asked to commit its work")
}
