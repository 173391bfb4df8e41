package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The run items of the second attack on issue 16: what the checks wrote
// is told apart from the agent's work, a landing held in a rewritten
// into is not lost, and a task needing the user is told.

// An agent that writes while the checks run: its file is its work, not
// the checks' output, and the task is not done without it.
func TestRunAgentWorkWrittenWhileChecksRunIsNotCheckOutput(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "r3.toml", `[run]
into = "integ3"
tool = "claude"
settle = "2s"
checks = [["sleep", "15"]]

[[task]]
id = "t"
task = "!write f.txt A\n!commit add f"
`)
	e.Git(repo, "add", "r3.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	e.MustOwt(repo, "run", "start", "r3.toml")
	e.logRunOnFailure(repo, "r3")
	e.MustOwt(repo, "tmux", "init")
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

// into rebased onto main and a landed file edited there afterwards: the
// landed commit is still in into (by patch-id), so nothing is lost.
func TestRunIntoRebasedThenEditedStillHoldsWhatLanded(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "r1.toml", `[run]
into = "integ"
max_concurrent = 2
tool = "claude"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"

[[task]]
id = "slow"
task = "!sleep 600s"
`)
	e.Git(repo, "add", "r1.toml")
	e.Git(repo, "commit", "-q", "-m", "plan")
	e.MustOwt(repo, "run", "start", "r1.toml")
	e.logRunOnFailure(repo, "r1")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(60*time.Second, "a landed", func() bool {
		return e.runTaskStates(repo, "r1")["a"] == "landed"
	})

	e.commitOnMain(repo, "m.txt")
	e.Git(repo, "rebase", "-q", "main", "integ")
	e.WriteFile(repo, "a.txt", "A2\n")
	e.Git(repo, "commit", "-q", "-am", "improve a on integ")
	e.Git(repo, "checkout", "-q", "main")

	s := e.runTaskStates(repo, "r1")
	require.Equal(t, "landed", s["a"], s["a.why"])
	require.Equal(t, "active", e.runStatus(repo, "r1").State, e.runWhy(repo, "r1"))
	e.requireNoEvent(repo, "r1", "paused")

	// A landed commit dropped from into is still lost.
	e.Git(repo, "checkout", "-q", "integ")
	e.Git(repo, "reset", "-q", "--hard", "main")
	e.Git(repo, "checkout", "-q", "main")
	require.Equal(t, "needs_you", e.runTaskStates(repo, "r1")["a"])
}

// [notify] on = ["needs_you"]: a run task whose agent waits at a
// permission prompt is announced, though waiting is not listed.
func TestRunTaskWaitingAtAPromptIsAnnouncedAsNeedingYou(t *testing.T) {
	e := NewEnv(t)
	told := filepath.Join(e.Root, "told.log")
	script := filepath.Join(e.Root, "notify.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"+
		`echo "$OWT_NAME|$OWT_STATUS|$OWT_EVENT|$OWT_TASK" >> `+told+"\n"), 0o755))
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", fmt.Sprintf("[notify]\ncommand = [%q]\n", script))
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[notify]\non = [\"needs_you\"]\n")
	e.Git(repo, "add", ".owt.toml")
	e.Git(repo, "commit", "-qm", "config")
	e.WriteFile(repo, "w.toml", "[run]\ntool = \"claude\"\n\n[[task]]\nid = \"ask\"\ntask = \"!ask echo hi\"\n")
	e.MustOwt(repo, "run", "start", "w.toml")
	e.logRunOnFailure(repo, "w")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(60*time.Second, "ask needs the user", func() bool { return e.runTaskStates(repo, "w")["ask"] == "needs_you" })
	require.Equal(t, "waiting", e.Find(repo, "w-ask").Status, "the agent waits at its permission prompt")
	e.Eventually(60*time.Second, "the user was told the task needs them", func() bool {
		b, _ := os.ReadFile(told)
		return strings.Contains(string(b), "w-ask|needs_you|run_task_needs_you|ask")
	})
}
