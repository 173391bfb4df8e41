package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/owt-tmux/owt/internal/e2e/fixture"
	"github.com/stretchr/testify/require"
)

// Retries, timeouts and restarts of the run engine: a failed attempt
// backs off and restarts in its worktree, exhausted attempts block the
// dependents until skip, the timeout counts active time only, and a run
// whose tmux server restarted waits for owt run resume, which brings the
// lost agents back in their worktrees.

type timedEvent struct {
	At                  time.Time
	Event, Task, Detail string
}

func (e *Env) timedEvents(dir, name string) []timedEvent {
	e.t.Helper()
	var evs []timedEvent
	out := e.MustOwt(dir, "run", "log", name, "--json")
	require.NoError(e.t, json.Unmarshal([]byte(out), &evs), out)
	return evs
}

func (e *Env) hasRunEvent(dir, name, event, task, detail string) bool {
	for _, ev := range e.timedEvents(dir, name) {
		if ev.Event == event && (task == "" || ev.Task == task) && strings.Contains(ev.Detail, detail) {
			return true
		}
	}
	return false
}

// agentStarts are the start events of the fake agents of worktree name.
func (e *Env) agentStarts(name string) []fixture.AgentEvent {
	var out []fixture.AgentEvent
	for _, ev := range e.Events() {
		if ev.Event == "start" && ev.Agent == name {
			out = append(out, ev)
		}
	}
	return out
}

func TestRunRetryAfterBackoffKeepsTheFirstAttemptsCommit(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	// The agent's script: the first attempt commits and fails; an
	// attempt that finds that commit in its worktree finishes.
	e.WriteFile(repo, "attempt.sh", fmt.Sprintf(`if [ -f one.txt ]; then
  echo two > two.txt && git add two.txt && git commit -qm "attempt two" && %[1]s done --summary second
else
  echo one > one.txt && git add one.txt && git commit -qm "attempt one" && %[1]s done --fail first-try-fails
fi
`, owtBin))
	e.Git(repo, "add", "attempt.sh")
	e.Git(repo, "commit", "-q", "-m", "the agent's script")
	e.WriteFile(repo, "retry.toml", `[run]
tool = "claude"

[run.retry]
max_attempts = 2
backoff = "1s"
backoff_max = "1s"

[[task]]
id = "t"
task = "!exec sh attempt.sh"
`)
	e.MustOwt(repo, "run", "start", "retry.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(60*time.Second, "task t done", func() bool {
		return e.runStatus(repo, "retry").Tasks[0].State == "done"
	})
	var names []string
	for _, ev := range e.timedEvents(repo, "retry") {
		switch ev.Event {
		case "starting", "backoff", "done", "failed", "needs_you":
			names = append(names, ev.Event)
		}
		if ev.Event == "backoff" {
			require.Contains(t, ev.Detail, "attempt 1: agent: first-try-fails")
		}
	}
	require.Equal(t, []string{"starting", "backoff", "starting", "done"}, names)

	task := e.runStatus(repo, "retry").Tasks[0]
	require.Equal(t, 2, *task.Attempt)
	log := e.Git(repo, "log", "--format=%s", *task.Branch)
	require.Contains(t, log, "attempt one", "attempt 1's commit is kept")
	require.Contains(t, log, "attempt two")

	// The second agent ran in the first one's worktree, told why.
	starts := e.agentStarts("retry-t")
	require.Len(t, starts, 2)
	require.Equal(t, starts[0].Cwd, starts[1].Cwd)
	prompts := e.Prompts("retry-t")
	require.Len(t, prompts, 2)
	require.Contains(t, prompts[1], "owt restarted this task (attempt 2): the previous attempt failed (agent: first-try-fails)")
	require.Contains(t, prompts[1], "The last lines of the previous agent's pane:\n| ")
	require.Contains(t, prompts[1], "Your task:\n!exec sh attempt.sh")
	require.Contains(t, prompts[1], "owt done --summary")
}

func TestRunExhaustedAttemptsBlockTheDependentUntilSkip(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
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

	e.Eventually(40*time.Second, "a failed, b blocked", func() bool {
		v := e.runStatus(repo, "ex")
		return v.Tasks[0].State == "failed" && v.Tasks[1].State == "blocked"
	})
	require.True(t, e.hasRunEvent(repo, "ex", "failed", "a", "attempt 1: agent: cannot-be-done; no attempts left"))
	require.True(t, e.hasRunEvent(repo, "ex", "blocked", "b", "by a"))

	// Bad usage and unknown names change nothing.
	r := e.Owt(repo, "run", "skip", "ex")
	require.Equal(t, 2, r.Code, r.Stderr)
	r = e.Owt(repo, "run", "skip", "ex", "nope")
	require.Equal(t, 3, r.Code, r.Stderr)
	require.Contains(t, r.Stderr, `no such task "nope"`)
	r = e.Owt(repo, "run", "skip", "nope", "a")
	require.Equal(t, 3, r.Code, r.Stderr)
	require.Equal(t, "blocked", e.runStatus(repo, "ex").Tasks[1].State)

	out := e.MustOwt(repo, "run", "skip", "ex", "a")
	require.Contains(t, out, "run ex: skipped a")
	require.Contains(t, out, "run ex: released b")
	e.Eventually(40*time.Second, "b done", func() bool {
		return e.runStatus(repo, "ex").Tasks[1].State == "done"
	})
	require.Equal(t, "finished", e.runStatus(repo, "ex").State)
	r = e.Owt(repo, "run", "skip", "ex", "a")
	require.Equal(t, 1, r.Code)
	require.Contains(t, r.Stderr, "task a is already skipped")
}

func TestRunTimeoutCountsNoTimeSpentWaitingForTheUser(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "slow.toml", `[run]
tool = "claude"
timeout = "4s"

[[task]]
id = "t"
task = "!ask ls\n!sleep 600"
`)
	e.MustOwt(repo, "run", "start", "slow.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(30*time.Second, "the agent asks the user", func() bool {
		return e.hasRunEvent(repo, "slow", "needs_you", "t", "the agent waits for you")
	})
	// Longer than the timeout waiting for the user: no timeout.
	time.Sleep(5 * time.Second)
	require.False(t, e.hasRunEvent(repo, "slow", "needs_you", "t", "timed out"))
	require.Equal(t, "waiting", e.Find(repo, "slow-t").Status)

	e.Tmux("send-keys", "-t", e.Find(repo, "slow-t").Session+":", "y") // the user says yes
	e.Eventually(30*time.Second, "the timeout", func() bool {
		return e.hasRunEvent(repo, "slow", "needs_you", "t", "timed out after 4s of active time")
	})
	// The log: waiting for the user (the clock held), then running again,
	// then the timeout; the time held (at least the 5s above) did not count.
	var heldAt, ranAt, outAt time.Time
	for _, ev := range e.timedEvents(repo, "slow") {
		switch {
		case ev.Event == "needs_you" && strings.Contains(ev.Detail, "waits for you"),
			ev.Event == "clock" && strings.Contains(ev.Detail, "held at"):
			heldAt = ev.At
		case ev.Event == "clock" && strings.Contains(ev.Detail, "runs") && !heldAt.IsZero():
			ranAt = ev.At
		case ev.Event == "needs_you" && strings.Contains(ev.Detail, "timed out"):
			outAt = ev.At
			require.Contains(t, ev.Detail, "the agent is left running: 'owt run retry slow t' restarts it")
		}
	}
	require.False(t, ranAt.IsZero(), "the clock ran again after the answer")
	require.GreaterOrEqual(t, ranAt.Sub(heldAt), 5*time.Second, "held for the wait")
	require.True(t, outAt.After(ranAt))
	// The agent is left running.
	require.True(t, e.Find(repo, "slow-t").Live)
	require.Equal(t, "working", e.Find(repo, "slow-t").Status)
	require.Equal(t, "needs_you", e.runStatus(repo, "slow").Tasks[0].State)
}

type runWhyJSON struct {
	State string `json:"state"`
	Why   string `json:"why"`
}

func TestRunResumesAfterTheTmuxServerRestarted(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "keep.toml", `[run]
tool = "claude"
max_concurrent = 2

[run.retry]
backoff = "1s"
backoff_max = "1s"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"

[[task]]
id = "b"
task = "!write b.txt\n!commit add b\n!sleep 600"
`)
	e.MustOwt(repo, "run", "start", "keep.toml")
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(40*time.Second, "a done and b at work with its commit", func() bool {
		v := e.runStatus(repo, "keep")
		return v.Tasks[0].State == "done" && v.Tasks[1].State == "running" &&
			len(e.agentStarts("keep-b")) == 1 && strings.Contains(e.Git(repo, "log", "--format=%s", *v.Tasks[1].Branch), "add b")
	})
	bPath := e.agentStarts("keep-b")[0].Cwd

	e.MustOwt(repo, "run", "stop", "keep")
	pid := e.MonitorPID()
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	e.Tmux("kill-server")
	e.Eventually(10*time.Second, "a new tmux server on the socket", func() bool {
		_, err := e.TryTmux("-f", "/dev/null", "new-session", "-d", "-s", "harness", "-x", "200", "-y", "50")
		return err == nil
	})
	e.MustOwt(repo, "tmux", "init")

	e.Eventually(30*time.Second, "the run paused for the restart", func() bool {
		var v runWhyJSON
		out := e.MustOwt(repo, "run", "status", "keep", "--json")
		require.NoError(t, json.Unmarshal([]byte(out), &v), out)
		return v.State == "paused" && strings.Contains(v.Why, "the tmux server restarted")
	})
	require.Contains(t, e.MustOwt(repo, "run", "status", "keep"), "paused (the tmux server restarted: owt run resume goes on)")
	require.Len(t, e.agentStarts("keep-b"), 1, "nothing starts before owt run resume")

	require.Contains(t, e.MustOwt(repo, "run", "resume", "keep"), "on this tmux server")
	defer func() {
		if t.Failed() {
			t.Log(e.MustOwt(repo, "run", "log", "keep"))
			t.Log(e.MustOwt(repo, "list"))
			logs, _ := exec.Command("sh", "-c", "tail -n 30 "+e.Root+"/state/owt/*.log").CombinedOutput()
			t.Log(string(logs))
		}
	}()
	e.Eventually(40*time.Second, "b's agent back in its worktree", func() bool {
		return len(e.agentStarts("keep-b")) == 2 && e.runStatus(repo, "keep").Tasks[1].State == "running"
	})
	require.Equal(t, bPath, e.agentStarts("keep-b")[1].Cwd, "the same worktree")
	// Issue 21: its conversation goes on: the tool resumed its own
	// session, and the task was not sent again.
	first, second := e.agentStarts("keep-b")[0], e.agentStarts("keep-b")[1]
	require.NotEmpty(t, first.SessionID)
	require.Equal(t, first.SessionID, second.SessionID, "on its own session")
	require.Contains(t, strings.Join(second.Argv, " "), "--resume "+first.SessionID)
	require.Len(t, e.Prompts("keep-b"), 1, "the task is not sent again")
	e.Eventually(20*time.Second, "b resumed", func() bool {
		out := e.MustOwt(repo, "status", "keep-b", "--json")
		return strings.Contains(out, `"outcome": "resumed"`)
	})
	require.True(t, e.Find(repo, "keep-b").Live)
	v := e.runStatus(repo, "keep")
	require.Equal(t, "active", v.State)
	require.Equal(t, "done", v.Tasks[0].State, "done stays done")
	require.Equal(t, 1, *v.Tasks[0].Attempt)
	require.Len(t, e.agentStarts("keep-a"), 1, "a's agent was not started again")
	require.Contains(t, e.Git(repo, "log", "--format=%s", *v.Tasks[1].Branch), "add b", "b's commit is kept")
}

// owt run retry starts the agent again in its own pane only: a window the
// user opened in the agent's session, and what runs there, stay.
func TestRunRetryRestartsOnlyTheAgentsPane(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.WriteFile(repo, "blk.toml", `[run]
tool = "claude"

[[task]]
id = "a"
task = "!exec `+owtBin+` done --blocked which-db"
`)
	e.MustOwt(repo, "run", "start", "blk.toml")
	e.MustOwt(repo, "tmux", "init")
	e.Eventually(30*time.Second, "a needs the user", func() bool {
		return e.runStatus(repo, "blk").Tasks[0].State == "needs_you"
	})
	e.Tmux("new-window", "-d", "-t", "=app/blk-a:", "-n", "mine", "sleep", "1001")

	require.Contains(t, e.MustOwt(repo, "run", "retry", "blk", "a"), "retry")
	e.Eventually(30*time.Second, "the agent started again", func() bool {
		return len(e.agentStarts("blk-a")) == 2
	})
	windows := e.Tmux("list-windows", "-t", "=app/blk-a:", "-F", "#{window_name} #{pane_current_command}")
	require.Contains(t, windows, "mine sleep", "the user's window and its program are still there")
	starts := e.agentStarts("blk-a")
	require.Equal(t, starts[0].Cwd, starts[1].Cwd, "in the same worktree")
}
