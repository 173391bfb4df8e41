package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Runs say what is true about their state (issue 16, items 5-9).

// A worktree name a task would get that is already in use (a worktree
// of that name, or its branch) is found when the run is registered, not
// after three attempts: owt run start and --dry-run say so, exit 1, and
// nothing is registered.
func TestRunStartRefusesAWorktreeNameInUse(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	nowhere := filepath.Join(e.Root, "no-server")
	e.MustOwt(repo, "new", "--no-agent", "--no-setup", "--name", "g-a", "something else")
	e.WriteFile(repo, "g.toml", "[[task]]\nid = \"a\"\ntask = \"one\"\n\n[[task]]\nid = \"b\"\ntask = \"two\"\n")

	for _, args := range [][]string{{"run", "start", "g.toml"}, {"run", "start", "g.toml", "--dry-run"}} {
		r := e.Owt(repo, append([]string{"-S", nowhere}, args...)...)
		requireOneLineError(t, r, `task a of run g would get the worktree g-a, which is in use: owt already has a worktree with that name`)
		require.Equal(t, 1, r.Code, args)
		require.Equal(t, 3, e.Owt(repo, "run", "status", "g").Code, "nothing registered")
	}

	// A branch of that name counts too: Create would refuse it.
	e.WriteFile(repo, "k.toml", "[[task]]\nid = \"b\"\ntask = \"two\"\n")
	e.Git(repo, "branch", "feat/k-b")
	r := e.Owt(repo, "-S", nowhere, "run", "start", "k.toml", "--dry-run")
	requireOneLineError(t, r, "task b of run k would get the worktree k-b, which is in use: branch feat/k-b already exists")
	require.Equal(t, 1, r.Code)
	require.Empty(t, e.runFiles(), "nothing registered")
}

// owtLog is owt's own log (the monitor's lines among them).
func (e *Env) owtLog() string {
	out, _ := exec.Command("sh", "-c", "cat "+e.Root+"/state/owt/*.log").CombinedOutput()
	return string(out)
}

// A run whose tasks failed or are blocked ends "failed", not "finished":
// it stays on the status bar with ▲ until the user acts, and the user is
// told once about the task that needs them (not about its blocked child,
// which waits on it). A retry makes the run active again.
func TestARunThatEndsWithFailedTasksIsFailedNotFinished(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	notified := filepath.Join(e.Root, "notified.log")
	script := filepath.Join(e.Root, "notify.sh")
	require.NoError(t, os.WriteFile(script, []byte("#!/bin/sh\necho \"$OWT_NAME\" >> "+notified+"\n"), 0o755))
	e.WriteFile(e.Var("XDG_CONFIG_HOME"), "owt/config.toml", fmt.Sprintf("[notify]\non = [\"needs_you\"]\ncommand = [%q]\n", script))
	e.WriteFile(repo, "ex.toml", `[run]
tool = "claude"

[run.retry]
max_attempts = 1

[[task]]
id = "a"
task = "!exec `+owtBin+` done --fail cannot-be-done"

[[task]]
id = "b"
task = "`+taskScript("b.txt")+`"
depends_on = ["a"]
`)
	e.MustOwt(repo, "run", "start", "ex.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(40*time.Second, "the run ended", func() bool {
		s := e.runStatus(repo, "ex").State
		return s != "active"
	})
	var v runWhyJSON
	out := e.MustOwt(repo, "run", "status", "ex", "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	require.Equal(t, "failed", v.State, "a run with a failed and a blocked task did not finish")
	require.Contains(t, v.Why, "a failed")
	require.Contains(t, v.Why, "b blocked by a")
	require.True(t, e.hasRunEvent(repo, "ex", "failed", "", "0/2 done"))
	require.Contains(t, e.MustOwt(repo, "run", "list"), "failed")

	bar := func() string { return e.Tmux("show-options", "-gqv", "@owt-runs") }
	e.Eventually(10*time.Second, "the bar keeps the run with ▲", func() bool {
		return bar() == "✗ex 0/2 #[fg=yellow,bold]▲1#[default]"
	})
	e.Eventually(10*time.Second, "the user was told about a", func() bool {
		b, _ := os.ReadFile(notified)
		return strings.TrimSpace(string(b)) != ""
	})
	time.Sleep(3 * time.Second) // more ticks: a second notice would land now
	b, _ := os.ReadFile(notified)
	require.Equal(t, "ex-a", strings.TrimSpace(string(b)), "told once, about a only")
	require.Equal(t, 1, strings.Count(e.owtLog(), "run ex: task a failed"), e.owtLog())

	// The user acts: a retry makes the run active again; the new attempt
	// fails too, and that failure is told in its turn.
	e.MustOwt(repo, "run", "retry", "ex", "a")
	require.True(t, e.hasRunEvent(repo, "ex", "reopened", "", "retry a"))
	e.Eventually(40*time.Second, "a's second attempt failed and was told", func() bool {
		b, _ := os.ReadFile(notified)
		return e.runStatus(repo, "ex").State == "failed" && strings.TrimSpace(string(b)) == "ex-a\nex-a"
	})
	require.Equal(t, 2, *e.runStatus(repo, "ex").Tasks[0].Attempt)
}

// After the tmux server restarted, a run says it is paused even when no
// monitor runs on the new server to notice: owt run status and list look
// at the server themselves, and the pause is recorded and logged once.
func TestARunSaysPausedAfterATmuxRestartWithNoMonitor(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "keep.toml", "[run]\ntool = \"claude\"\n\n[[task]]\nid = \"b\"\ntask = \"!sleep 600\"\n")
	e.MustOwt(repo, "run", "start", "keep.toml")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(40*time.Second, "b at work", func() bool { return e.runStatus(repo, "keep").Tasks[0].State == "running" })

	pid := e.MonitorPID()
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	e.Tmux("kill-server")
	e.Eventually(10*time.Second, "a new tmux server on the socket, without owt", func() bool {
		_, err := e.TryTmux("-f", "/dev/null", "new-session", "-d", "-s", "harness", "-x", "200", "-y", "50")
		return err == nil
	})

	var v runWhyJSON
	out := e.MustOwt(repo, "run", "status", "keep", "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	require.Equal(t, "paused", v.State, "nothing drives it: it is not active")
	require.Equal(t, "the tmux server restarted: owt run resume goes on", v.Why)
	require.Contains(t, e.MustOwt(repo, "run", "status", "keep"), "keep: paused (the tmux server restarted: owt run resume goes on)")
	require.Regexp(t, `keep\s+paused`, e.MustOwt(repo, "run", "list"))
	require.Len(t, e.eventsOf(repo, "keep", "paused"), 1, "recorded once")
	require.Empty(t, e.MonitorPIDs(), "no monitor was started by looking")
}

// The base branch deleted mid-run: a child of one parent (no into)
// starts from its parent's tip and needs no base; a task that starts from
// the base needs the user, once and clearly, with no attempt spent on
// backoff.
func TestRunWithItsBaseDeletedMidRun(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Git(repo, "branch", "dev")
	e.WriteFile(repo, "gone.toml", `[run]
base = "dev"
tool = "claude"
max_concurrent = 1

[run.retry]
backoff = "1s"
backoff_max = "1s"

[[task]]
id = "a"
task = "!exec git branch -D dev\n`+taskScript("a.txt")+`"

[[task]]
id = "b"
task = "`+taskScript("b.txt")+`"
depends_on = ["a"]

[[task]]
id = "c"
task = "`+taskScript("c.txt")+`"
`)
	e.MustOwt(repo, "run", "start", "gone.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "b done, c needs you", func() bool {
		v := e.runStatus(repo, "gone")
		return v.Tasks[1].State == "done" && v.Tasks[2].State == "needs_you"
	})
	require.NotContains(t, e.Git(repo, "branch", "--list"), " dev", "the base is gone")
	time.Sleep(3 * time.Second) // more ticks: a second verdict on c would land now
	v := e.runStatus(repo, "gone")
	require.Equal(t, "done", v.Tasks[0].State)
	require.Contains(t, e.Git(repo, "log", "--format=%s", *v.Tasks[1].Branch), "add a", "b started from a's work")
	c := v.Tasks[2]
	require.Contains(t, c.Why, "the branch dev it starts from is gone")
	require.Equal(t, 0, *c.Attempt, "no attempt was spent")
	require.Empty(t, e.eventsOf(repo, "gone", "backoff"), "nothing burnt on backoff")
	require.Len(t, e.eventsOf(repo, "gone", "needs_you"), 1, "said once")

	// The user brings the branch back and retries: c starts and is done.
	e.Git(repo, "branch", "dev", "main")
	e.MustOwt(repo, "run", "retry", "gone", "c")
	e.Eventually(60*time.Second, "c done", func() bool { return e.runStatus(repo, "gone").Tasks[2].State == "done" })
	require.Equal(t, "finished", e.runStatus(repo, "gone").State)
}

// A run whose into is still to be made from a base that was deleted says
// so in words the user can act on, not git's "no such commit", and lands
// once into exists.
func TestRunWithItsBaseDeletedBeforeTheFirstLandingSaysWhatToDo(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.Git(repo, "branch", "dev")
	e.WriteFile(repo, "gone.toml", `[run]
base = "dev"
into = "feat/x"
tool = "claude"

[[task]]
id = "a"
task = "!exec git branch -D dev\n`+taskScript("a.txt")+`"
`)
	e.MustOwt(repo, "run", "start", "gone.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "a needs you", func() bool {
		return e.runStatus(repo, "gone").Tasks[0].State == "needs_you"
	})
	why := e.runStatus(repo, "gone").Tasks[0].Why
	require.Contains(t, why, "base branch dev is gone")
	require.NotContains(t, why, "no such commit")
	require.NotContains(t, e.Git(repo, "branch", "--list"), "feat/x", "into was not made from anything else")

	// The user makes into; the landing is tried again on its own.
	e.Git(repo, "branch", "feat/x", "main")
	e.Eventually(60*time.Second, "a landed", func() bool { return e.runStatus(repo, "gone").Tasks[0].State == "landed" })
	require.Contains(t, e.Git(repo, "log", "--format=%s", "feat/x"), "add a")
}
