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

// A run's notice reaches [notify] command as what it is: OWT_STATUS
// needs_you, OWT_EVENT naming the kind, the text, the run and the task;
// and [notify] on filters it (needs_you), as it filters status changes.
func TestRunNoticesReachTheNotifyCommandAsWhatTheyAre(t *testing.T) {
	e := NewEnv(t)
	told := filepath.Join(e.Root, "told.log")
	script := filepath.Join(e.Root, "notify.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\n"+
		`echo "$OWT_NAME|$OWT_STATUS|$OWT_EVENT|$OWT_RUN|$OWT_TASK|$OWT_TEXT" >> `+told+"\n"), 0o755))
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", fmt.Sprintf("[notify]\ncommand = [%q]\n", script))
	plan := "[run]\ntool = \"claude\"\n\n[run.retry]\nmax_attempts = 1\n\n[[task]]\nid = \"bad\"\ntask = \"!exec " + owtBin + " done --fail cannot-be-done\"\n"

	// Not listed in on: nothing is told of it.
	quiet := e.NewRepo("quiet")
	e.WriteFile(quiet, ".owt.toml", "[notify]\non = [\"waiting\"]\n")
	e.Git(quiet, "add", ".owt.toml")
	e.Git(quiet, "commit", "-qm", "config")
	e.WriteFile(quiet, "q.toml", plan)
	e.MustOwt(quiet, "run", "start", "q.toml")
	e.MustOwt(quiet, "tmux", "init")
	e.Eventually(60*time.Second, "q failed", func() bool { return e.runStatus(quiet, "q").State == "failed" })

	// Listed: told as what it is.
	repo := e.NewRepo("app")
	e.WriteFile(repo, ".owt.toml", "[notify]\non = [\"needs_you\"]\n")
	e.Git(repo, "add", ".owt.toml")
	e.Git(repo, "commit", "-qm", "config")
	e.WriteFile(repo, "ex.toml", plan)
	e.MustOwt(repo, "run", "start", "ex.toml")
	e.Eventually(60*time.Second, "the user was told about bad", func() bool {
		b, _ := os.ReadFile(told)
		return strings.TrimSpace(string(b)) != ""
	})
	time.Sleep(2 * time.Second) // more ticks: a second notice would land now
	b, _ := os.ReadFile(told)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 1, "told once, and nothing of run q: %s", b)
	require.Regexp(t, `^ex-bad\|needs_you\|run_task_failed\|ex\|bad\|owt: run ex: task bad failed \(.*cannot-be-done`, lines[0])
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
	e.startRun(repo, "w", "[run]\ntool = \"claude\"\n\n[[task]]\nid = \"ask\"\ntask = \"!ask echo hi\"\n")
	e.Eventually(60*time.Second, "ask needs the user", func() bool { return e.runTaskStates(repo, "w")["ask"] == "needs_you" })
	require.Equal(t, "waiting", e.Find(repo, "w-ask").Status, "the agent waits at its permission prompt")
	e.Eventually(60*time.Second, "the user was told the task needs them", func() bool {
		b, _ := os.ReadFile(told)
		return strings.Contains(string(b), "w-ask|needs_you|run_task_needs_you|ask")
	})
}
