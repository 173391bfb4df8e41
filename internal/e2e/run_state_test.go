package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Runs say what is true about their state: names in use, failed tasks,
// a pause without a monitor, a deleted base or parent branch, a repaired
// run file, a retry held while a client looks on.

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
		return bar() == "✗ex 0/2 #[fg=black,bg=yellow,bold] ▲1 #[default]"
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

// A parent's branch deleted after the parent was done: its child does
// not burn attempts on backoff; the parent needs the user (it no longer
// reads done), naming its branch, and the child waits, no attempt spent.
func TestRunWithAParentsBranchDeletedWaitsForTheUser(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	flag := filepath.Join(e.Root, "go-slow")
	e.startRun(repo, "d", `[run]
tool = "claude"

[run.retry]
backoff = "1s"
backoff_max = "1s"

[[task]]
id = "a"
task = "`+taskScript("a.txt")+`"

[[task]]
id = "slow"
task = "!exec `+e.waitScript(flag)+`\n`+taskScript("slow.txt")+`"

[[task]]
id = "kid"
task = "`+taskScript("kid.txt")+`"
depends_on = ["a", "slow"]
`)
	e.Eventually(60*time.Second, "a done", func() bool { return e.runTaskStates(repo, "d")["a"] == "done" })

	e.MustOwt(repo, "delete", "d-a", "--force", "--yes")
	require.NoError(t, os.WriteFile(flag, nil, 0o600))
	e.Eventually(60*time.Second, "kid tried to start", func() bool {
		return e.runTaskStates(repo, "d")["a"] == "needs_you" || len(e.eventsOf(repo, "d", "backoff")) > 0
	})
	time.Sleep(3 * time.Second) // more ticks: a backoff of kid would land now
	v := e.runStatus(repo, "d")
	require.Equal(t, "done", v.Tasks[1].State)
	require.Contains(t, v.Tasks[0].Why, "feat/d-a")
	require.Contains(t, v.Tasks[0].Why, "gone")
	kid := v.Tasks[2]
	require.Equal(t, "pending", kid.State)
	require.Equal(t, 0, *kid.Attempt, "no attempt was spent")
	require.Empty(t, e.eventsOf(repo, "d", "backoff"), "nothing burnt on backoff")
	require.Len(t, e.eventsOf(repo, "d", "needs_you"), 1, "said once")

	// What it says works: a retry does a again, and kid starts from it.
	e.MustOwt(repo, "run", "retry", "d", "a")
	e.Eventually(90*time.Second, "kid done", func() bool { return e.runTaskStates(repo, "d")["kid"] == "done" })
	require.Contains(t, e.Git(repo, "log", "--format=%s", "feat/d-kid"), "add a.txt", "kid started from a's new work")
}

// A branch name git cannot make because of another branch (feat/y-b
// while feat/y-b/old exists, or anything under feat while a branch named
// feat exists) is a name in use: run start and --dry-run say so, exit 1,
// nothing registered; owt new says it in one line, nothing made.
func TestANameWhoseBranchClashesWithAnotherRefIsInUse(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	nowhere := filepath.Join(e.Root, "no-server")
	e.WriteFile(repo, "y.toml", "[[task]]\nid = \"b\"\ntask = \"two\"\n")
	e.Git(repo, "branch", "feat/y-b/old")
	for _, args := range [][]string{{"run", "start", "--name", "y", "y.toml", "--dry-run"}, {"run", "start", "--name", "y", "y.toml"}} {
		r := e.Owt(repo, append([]string{"-S", nowhere}, args...)...)
		requireOneLineError(t, r, "task b of run y would get the worktree y-b, which is in use: branch feat/y-b/old exists, and git cannot have both it and feat/y-b")
		require.Equal(t, 1, r.Code, args)
	}
	require.Empty(t, e.runFiles(), "nothing registered")

	e.Git(repo, "branch", "-D", "feat/y-b/old")
	e.Git(repo, "branch", "feat")
	r := e.Owt(repo, "-S", nowhere, "run", "start", "--name", "y", "y.toml", "--dry-run")
	requireOneLineError(t, r, "branch feat exists, and git cannot have both it and feat/y-b")
	require.Equal(t, 1, r.Code)

	before := e.Git(repo, "for-each-ref")
	r = e.Owt(repo, "new", "--no-agent", "--no-setup", "--name", "z", "add a thing")
	requireOneLineError(t, r, "branch feat exists, and git cannot have both it and feat/z")
	r = e.Owt(repo, "new", "--no-agent", "--no-setup", "add a thing")
	requireOneLineError(t, r, "branch feat exists, and git cannot have both it and feat/")
	require.Equal(t, before, e.Git(repo, "for-each-ref"), "no branch made")
	var listed []any
	out := e.MustOwt(repo, "list", "--json")
	require.NoError(t, json.Unmarshal([]byte(out), &listed), out)
	require.Empty(t, listed, "no worktree made")
}

// Two runs started at once whose tasks would share a worktree name
// (run q task b-c and run q-b task c are both q-b-c) are never both
// registered: the check is made under the lock registration takes.
func TestRunsStartedAtOnceNeverRegisterClashingNames(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	nowhere := filepath.Join(e.Root, "no-server")
	e.WriteFile(repo, "one.toml", "[[task]]\nid = \"b-c\"\ntask = \"one\"\n")
	e.WriteFile(repo, "two.toml", "[[task]]\nid = \"c\"\ntask = \"two\"\n")
	for i := 0; i < 6; i++ {
		q := fmt.Sprintf("q%d", i)
		var wg sync.WaitGroup
		var codes [2]int
		for j, args := range [][]string{{"--name", q, "one.toml"}, {"--name", q + "-b", "two.toml"}} {
			wg.Add(1)
			go func(j int, args []string) {
				defer wg.Done()
				codes[j] = e.Owt(repo, append([]string{"-S", nowhere, "run", "start"}, args...)...).Code
			}(j, args)
		}
		wg.Wait()
		require.ElementsMatch(t, []int{0, 1}, codes[:], "round %d: exactly one of the two is registered", i)
	}
}

// A run file made unreadable in place and repaired in place (no rename,
// so the runs dir does not change): while it is unreadable the run stays
// on the bar with ▲ and in owt run list, saying so and where, even after
// other changes to the runs dir; once repaired, the engine drives it on.
func TestARunFileRepairedInPlaceIsDrivenAgain(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	nowhere := filepath.Join(e.Root, "no-server")
	flag := filepath.Join(e.Root, "go-x")
	e.startRun(repo, "b", `[run]
tool = "claude"

[[task]]
id = "x"
task = "!exec `+e.waitScript(flag)+`\n`+taskScript("x.txt")+`"

[[task]]
id = "y"
task = "`+taskScript("y.txt")+`"
depends_on = ["x"]
`)
	e.Eventually(60*time.Second, "x at work", func() bool { return e.runTaskStates(repo, "b")["x"] == "running" })

	file := filepath.Join(e.Root, "state", "owt", "runs", "b.json")
	saved, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(file, 0))
	e.Eventually(20*time.Second, "the monitor saw it corrupt", func() bool { return strings.Contains(e.owtLog(), "b.json is corrupt") })

	// Another change to the runs dir: a run of another server.
	e.WriteFile(repo, "o.toml", "[[task]]\nid = \"o\"\ntask = \"one\"\n")
	e.MustOwt(repo, "-S", nowhere, "run", "start", "o.toml")
	bar := func() string { return e.Tmux("show-options", "-gqv", "@owt-runs") }
	e.Eventually(20*time.Second, "the bar keeps b, needing the user", func() bool {
		return strings.Contains(bar(), "b unreadable #[fg=black,bg=yellow,bold] ▲")
	})
	r := e.Owt(repo, "run", "list")
	require.Regexp(t, `(?m)^b\s+unreadable\s.*b\.json is corrupt`, r.Stdout)
	require.NotContains(t, r.Stdout, "no runs")

	// Repaired in place: the engine goes on with it.
	require.NoError(t, os.WriteFile(file, saved, 0o600))
	require.NoError(t, os.WriteFile(flag, nil, 0o600))
	e.Eventually(60*time.Second, "y done", func() bool { return e.runTaskStates(repo, "b")["y"] == "done" })
	e.Eventually(20*time.Second, "the bar shows b as it is", func() bool { return !strings.Contains(bar(), "unreadable") })
}

// A retry never restarts the agent in front of the user: while a client
// is on the task's pane the restart is held, the task says so, and it
// restarts once the user left.
func TestRunHoldsARetryWhileAClientIsOnTheAgentsPane(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	flag := filepath.Join(e.Root, "fail-now")
	e.startRun(repo, "hold", `[run]
tool = "claude"

[run.retry]
max_attempts = 2
backoff = "1s"
backoff_max = "1s"

[[task]]
id = "t"
task = "!exec `+e.waitScript(flag)+`\n!exec `+owtBin+` done --fail try-again"
`)
	e.Eventually(60*time.Second, "t at work", func() bool { return e.runTaskStates(repo, "hold")["t"] == "running" })

	it := e.Find(repo, "hold-t")
	client, _ := e.attach(it.Session)
	require.NoError(t, os.WriteFile(flag, nil, 0o600))
	held := e.waitRunEvent(repo, "hold", "held")
	require.Contains(t, held.Detail, "the user is on its pane")
	require.Contains(t, e.runTaskStates(repo, "hold")["t.why"], "restarts when you leave its pane")
	time.Sleep(3 * time.Second) // more ticks: a restart would happen now
	require.Len(t, e.agentStarts("hold-t"), 1, "not restarted in front of the user")
	require.Len(t, e.eventsOf(repo, "hold", "held"), 1, "said once")

	left := time.Now()
	e.Tmux("detach-client", "-t", client)
	e.Eventually(60*time.Second, "attempt 2 started", func() bool { return len(e.agentStarts("hold-t")) == 2 })
	starting := e.eventsOf(repo, "hold", "starting")
	require.Len(t, starting, 2)
	require.True(t, starting[1].At.After(left), "restarted only once the user left: %v, left at %v", starting[1].At, left)
}

// A needs-you task whose worktree folder was removed behind owt's back
// (rm -rf) no longer shows the agent's old question: it says the
// worktree is gone.
func TestANeedsYouTaskWhoseWorktreeWasRemovedSaysSo(t *testing.T) {
	e := NewEnv(t)
	repo := e.NewRepo("app")
	e.startRun(repo, "w", oneTaskPlan("ask", "!exec "+owtBin+" done --blocked which-db", ""))
	e.Eventually(60*time.Second, "ask needs you", func() bool { return e.runTaskStates(repo, "w")["ask"] == "needs_you" })
	require.Contains(t, e.runTaskStates(repo, "w")["ask.why"], "which-db")

	require.NoError(t, os.RemoveAll(e.Find(repo, "w-ask").Path))
	e.Eventually(30*time.Second, "it says its worktree is gone", func() bool {
		return strings.Contains(e.runTaskStates(repo, "w")["ask.why"], "its worktree w-ask is gone")
	})
	require.Equal(t, "needs_you", e.runTaskStates(repo, "w")["ask"])
}
